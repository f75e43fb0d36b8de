package localproc

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

func TestSplitCmdline(t *testing.T) {
	for in, want := range map[string][]string{
		"":                              nil,
		"sleep\x00":                     {"sleep"},
		"/bin/kubelet\x00--a=b\x00\x00": {"/bin/kubelet", "--a=b"},
		"title set by the program":      {"title set by the program"},
	} {
		if got := SplitCmdline([]byte(in)); !slices.Equal(got, want) {
			t.Errorf("SplitCmdline(%q) = %q, want %q", in, got, want)
		}
	}
}

// otherProcesses sees a child with its arguments, and never this process.
func TestOtherProcesses(t *testing.T) {
	cmd := exec.Command("sleep", "30", "0.25")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Start returns once the exec began; the new command line shows a
	// moment later.
	want := []string{"sleep", "30", "0.25"}
	var child []string
	for deadline := time.Now().Add(10 * time.Second); !slices.Equal(child, want) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		procs, err := OtherProcesses()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range procs {
			if p.PID == os.Getpid() {
				t.Fatalf("this process (%d) is listed: %q", p.PID, p.Args)
			}
			if p.PID == cmd.Process.Pid {
				child = p.Args
			}
		}
	}
	if !slices.Equal(child, want) {
		t.Errorf("the child %d: %q, want %q", cmd.Process.Pid, child, want)
	}
	if got := CommandLine(os.Getpid()); len(got) == 0 {
		t.Error("commandLine of this process is empty")
	}
}

package localproc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestDeathDuringStartReportsLogTail(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "comp.log")
	script := `for i in $(seq 1 50); do echo "line $i"; done; echo "E: unrecognized feature gate: Bogus" >&2; exit 3`
	p, err := Start(nil, "comp", "/bin/sh", []string{"-c", script}, logPath, "Bogus=true")
	if err != nil {
		t.Fatal(err)
	}
	// Nothing listens on port 1, so only the exit can end the wait early.
	err = WaitHealthy(context.Background(), p, PlainProbe("http://127.0.0.1:1/healthz"), 30*time.Second)
	if err == nil {
		t.Fatal("waitHealthy succeeded for a process that exited")
	}
	msg := err.Error()
	for _, want := range []string{"comp exited during start", logPath, "unrecognized feature gate: Bogus", "line 50"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "line 10\n") {
		t.Errorf("error carries the whole log, not its tail:\n%s", msg)
	}
	log, _ := os.ReadFile(logPath)
	if !strings.Contains(string(log), "with feature gates: Bogus=true") {
		t.Errorf("log has no start header naming the gates:\n%s", log)
	}
}

func TestLogTailShowsOnlyTheLatestRun(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "comp.log")
	for _, word := range []string{"earlier-run", "latest-run"} {
		p, err := Start(nil, "comp", "/bin/sh", []string{"-c", "echo " + word}, logPath, "")
		if err != nil {
			t.Fatal(err)
		}
		<-p.done
	}
	tail := LogTail(logPath, 30)
	if strings.Contains(tail, "earlier-run") || !strings.Contains(tail, "latest-run") {
		t.Errorf("tail mixes runs or misses the latest:\n%s", tail)
	}
}

func TestLogAppendsAcrossStarts(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "comp.log")
	for _, word := range []string{"first", "second"} {
		p, err := Start(nil, "comp", "/bin/sh", []string{"-c", "echo " + word}, logPath, "")
		if err != nil {
			t.Fatal(err)
		}
		<-p.done
	}
	log, _ := os.ReadFile(logPath)
	if s := string(log); !strings.Contains(s, "first") || !strings.Contains(s, "second") || strings.Count(s, "starting comp") != 2 {
		t.Errorf("log does not hold both runs with headers:\n%s", s)
	}
}

func TestStopEscalatesToKill(t *testing.T) {
	// A process that ignores SIGTERM, like a wedged component.
	p, err := Start(nil, "stubborn", "/bin/sh", []string{"-c", `trap "" TERM; while :; do sleep 0.1; done`},
		filepath.Join(t.TempDir(), "s.log"), "")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let the trap be installed
	began := time.Now()
	p.Stop(500 * time.Millisecond)
	if !p.Exited() {
		t.Fatal("stop returned before the process exited")
	}
	if d := time.Since(began); d < 400*time.Millisecond {
		t.Errorf("stop took %s; SIGTERM should have been ignored for the grace period", d)
	}
	// The group, including the sleep children, must be gone too. Killed
	// grandchildren are reaped by init, not us, so give that a moment.
	deadline := time.Now().Add(3 * time.Second)
	for {
		err := syscall.Kill(-p.PID, 0)
		if errors.Is(err, syscall.ESRCH) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still exists after stop: %v", p.PID, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.Stop(time.Second) // idempotent
	if log, _ := os.ReadFile(p.LogPath); !strings.Contains(string(log), "after SIGTERM; sent SIGKILL") {
		t.Errorf("log does not record the SIGKILL:\n%s", log)
	}
}

func TestFreePortsDistinct(t *testing.T) {
	ports, err := FreePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v are not distinct positive numbers", ports)
		}
		seen[p] = true
	}
}

func TestComponentEnvTunesTheCollectorUnlessTheUserDid(t *testing.T) {
	got := ComponentEnv([]string{"PATH=/bin"})
	if !slices.Contains(got, "GOGC=400") || !slices.Contains(got, "GOMEMLIMIT=1GiB") || !slices.Contains(got, "PATH=/bin") {
		t.Errorf("ComponentEnv = %q", got)
	}
	for _, own := range []string{"GOGC=50", "GOMEMLIMIT=4GiB"} {
		if got := ComponentEnv([]string{"PATH=/bin", own}); len(got) != 2 {
			t.Errorf("with %s set, ComponentEnv = %q: the user's setting must stand alone", own, got)
		}
	}
}

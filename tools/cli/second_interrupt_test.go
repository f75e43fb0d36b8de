package cli

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/cluster/localcp"
)

// TestSecondCtrlCStopsAtOnce is two Ctrl-Cs for real: `draconform up`, once
// its control plane runs, gets one interrupt and, while it cleans up,
// another. It must end at once with 130, having said what it leaves
// (its control plane's private folder, which must really be there) and how
// to remove it.
func TestSecondCtrlCStopsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	bin := buildCLI(t)
	if out, err := exec.Command(bin, "binaries", "--provider", "local").CombinedOutput(); err != nil {
		t.Fatalf("draconform binaries: %v\n%s", err, out)
	}
	run := startCLI(t, bin, "up", "--provider", "local", "--cell", "defaults", "--out", t.TempDir())
	if !run.waitFor(func(line string) bool { return strings.Contains(line, "Ctrl-C stops it") }, 3*time.Minute) {
		t.Fatalf("draconform up did not come up in 3 minutes:\n%s", run.output())
	}
	if err := run.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if !run.waitFor(func(line string) bool { return strings.Contains(line, "cleaning up") }, 5*time.Second) {
		t.Fatalf("the first Ctrl-C did not say the run cleans up:\n%s", run.output())
	}
	began := time.Now()
	ended, err := run.interrupt(5 * time.Second)
	if !ended {
		t.Fatalf("draconform up did not stop within 5 s of a second Ctrl-C:\n%s", run.output())
	}
	t.Logf("stopped %s after the second Ctrl-C", time.Since(began).Round(time.Millisecond))
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit %v after a second Ctrl-C, want code 130:\n%s", err, run.output())
	}
	out := run.output()
	t.Logf("what it said:\n%s", out[strings.Index(out, "cleaning up"):])
	if !strings.Contains(out, "draconform cleanup --nodes") {
		t.Errorf("the stop at once does not say how to clean up:\n%s", out)
	}
	// The folder it names is there (the stop did not clean up), and it
	// is a control plane's: the message is true.
	folders := regexp.MustCompile(`folder: (\S+)`).FindAllStringSubmatch(out, -1)
	if len(folders) == 0 {
		t.Fatalf("the stop at once names no folder it leaves:\n%s", out)
	}
	for _, m := range folders {
		t.Cleanup(func() { _ = localcp.RemoveOrphanState(m[1]) })
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("named folder %s: %v", m[1], err)
		}
	}
}

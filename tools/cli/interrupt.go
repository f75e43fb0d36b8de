package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/draconform/draconform/tools/internal/parentgone"
	"github.com/draconform/draconform/tools/internal/privdir"
	"github.com/draconform/draconform/tools/usecase"
)

// InterruptedExit is the exit code of a stop at once: 128 + SIGINT, as a
// shell reports a process Ctrl-C ended.
const InterruptedExit = 130

// WatchInterrupts turns the signals on sigs into a stop in two steps. The
// first cancels the run (cancel), which stops its control planes and nodes
// and removes their folders; that can take a minute, so it says so. The
// second does not wait for that: it says what stays on the machine and how
// to remove it, and calls exit with InterruptedExit. Without a second
// step, an impatient user reaches for SIGKILL and learns nothing of what
// stayed.
func WatchInterrupts(sigs <-chan os.Signal, cancel context.CancelCauseFunc, errOut io.Writer, exit func(int)) {
	first, ok := <-sigs
	if !ok {
		return
	}
	cancel(fmt.Errorf("%v signal received", first))
	fmt.Fprintf(errOut, "\ndraconform: %v: cleaning up (stopping control planes and nodes, removing their folders); press Ctrl-C again to stop at once and leave them\n", first)
	for sig := range sigs {
		// A shard or child run shares the terminal's process group with
		// the draconform that started it, and that one passes its own
		// interrupt on: one Ctrl-C reaches such a run twice. Its parent
		// stops at once on a second Ctrl-C and names it among what stays;
		// the run itself goes on cleaning up.
		if underDraconform() {
			fmt.Fprintf(errOut, "draconform: %v again; the draconform that started this run decides whether to stop at once, this run goes on cleaning up\n", sig)
			continue
		}
		fmt.Fprint(errOut, leftBehind(os.Getpid(), os.TempDir()))
		exit(InterruptedExit)
		return
	}
}

// underDraconform says whether this process was started by a draconform
// (the same executable) that still runs.
func underDraconform() bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	parent, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", os.Getppid()))
	return err == nil && os.Getppid() > 1 && parent == self
}

// leftBehind says what a stop at once of process pid leaves and how to
// remove it.
func leftBehind(pid int, tmp string) string {
	procs, dirs := usecase.Held(pid, tmp)
	var b strings.Builder
	b.WriteString("\ndraconform: stopping at once, without cleaning up.\n")
	if len(procs) > 0 {
		fmt.Fprintf(&b, "  processes: %s (they die with draconform; a node's containerd shims and containers stay)\n", strings.Join(procs, ", "))
	}
	for _, d := range append(dirs, privdir.OwnedBy(tmp, pid)...) {
		fmt.Fprintf(&b, "  folder: %s\n", d)
	}
	b.WriteString("To remove what stays on this machine: draconform cleanup --nodes (as root; --dry-run lists it first).\n")
	b.WriteString("Objects the run made in a cluster it visited: draconform cleanup --run <run id>.\n")
	return b.String()
}

// InterruptOnceWhenParentGoes makes a draconform child's parent's death
// one Ctrl-C (parentgone.InterruptOnce); it returns what stops it.
func InterruptOnceWhenParentGoes() (stop func()) { return parentgone.InterruptOnce() }

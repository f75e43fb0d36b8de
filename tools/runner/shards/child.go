package shards

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/draconform/draconform/tools/report"
)

// Child runs `draconform run` as a process of its own (ginkgo runs one
// suite per process) with its output in out, and returns the outcomes it
// wrote. A failing run is expected here (a killed mutant, a flake): its exit
// code is ignored, and only a run that wrote no outcomes is an error.
func Child(ctx context.Context, out string, args ...string) ([]report.Outcome, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding draconform's own binary: %w", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(out, "run.log")
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, self, append([]string{"run", "--out", out}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	// Interrupted, the run stops its control planes and cleans up as on
	// Ctrl-C; only if it hangs is it killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	// In a process group of its own: a Ctrl-C at the terminal reaches the
	// group of this process only, and the child gets it once, forwarded by
	// Cancel. Reaching it twice (from the terminal and from here), ginkgo
	// takes the second as "skip the clean-up" and leaves the cell's folders.
	// It dies with its parent too, cleaning up as on Ctrl-C: a parent
	// killed outright would otherwise leave it running, orphaned, with its
	// cluster. The death signal follows the thread that started the child,
	// so that thread stays this goroutine's until the child has ended.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGINT}
	cmd.WaitDelay = time.Minute
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted (see %s): %w", logPath, ctx.Err())
	}
	data, err := os.ReadFile(filepath.Join(out, report.OutcomesFile))
	if err != nil {
		return nil, fmt.Errorf("the run wrote no outcomes (see %s): %w", logPath, err)
	}
	var outcomes []report.Outcome
	if err := json.Unmarshal(data, &outcomes); err != nil {
		return nil, fmt.Errorf("outcomes of the run in %s: %w", out, err)
	}
	return outcomes, nil
}

// ChildVerdicts are the verdicts a child run wrote beside its outcomes.
func ChildVerdicts(out string) ([]report.Verdict, error) {
	data, err := os.ReadFile(filepath.Join(out, report.VerdictsFile))
	if err != nil {
		return nil, fmt.Errorf("the run wrote no verdicts (see %s): %w", filepath.Join(out, "run.log"), err)
	}
	var vs []report.Verdict
	if err := json.Unmarshal(data, &vs); err != nil {
		return nil, fmt.Errorf("verdicts of the run in %s: %w", out, err)
	}
	return vs, nil
}

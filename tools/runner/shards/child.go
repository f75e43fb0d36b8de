package shards

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	_ = runChild(cmd, time.Minute)
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

package usecase

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
	"github.com/draconform/draconform/tools/runner/shards"
)

// FlakeCheckRequest runs the whole suite Runs times, each time in a process
// and on control planes of its own, and compares every run with the golden
// outcomes: a case whose outcome ever differs is a flake (or a real
// change) and fails the check. Args go to every run (e.g. --provider
// local); Partial says they focus it.
type FlakeCheckRequest struct {
	Runs                 int
	Golden, Out, Summary string
	Partial              bool
	Args                 []string
}

// FlakeCheckResult says how many runs finished, how many outcomes deviated
// in at least one, and what each deviating case did in every run, as
// Markdown, so a flake is told from a consistent change at a glance.
type FlakeCheckResult struct {
	Finished, Deviated int
	Summary            string
}

// FlakeCheck runs the check; each run's line goes to s.Out.
func FlakeCheck(ctx context.Context, r FlakeCheckRequest, s Streams) (FlakeCheckResult, error) {
	if r.Runs < 1 {
		return FlakeCheckResult{}, failed(2, fmt.Errorf("--runs must be at least 1"))
	}
	want, err := report.LoadGolden(r.Golden)
	if err != nil {
		return FlakeCheckResult{}, err
	}
	dir, err := outputDir(r.Out, "flake-check-"+runner.NewRunID())
	if err != nil {
		return FlakeCheckResult{}, err
	}
	fc := flakeCheck{want: want, complete: !r.Partial, deviations: map[string][]string{}}
	began := time.Now()
	if err := fc.runAll(ctx, dir, r, s); err != nil {
		return FlakeCheckResult{}, err
	}
	res := FlakeCheckResult{Finished: fc.runs, Deviated: len(fc.deviations), Summary: fc.summary(time.Since(began))}
	if r.Summary != "" {
		if err := os.WriteFile(r.Summary, []byte(res.Summary), 0o644); err != nil {
			return res, err
		}
	}
	return res, nil
}

// runAll makes the runs one after another; interrupted, the finished runs
// still count, and say so.
func (f *flakeCheck) runAll(ctx context.Context, dir string, r FlakeCheckRequest, s Streams) error {
	for i := 1; i <= r.Runs; i++ {
		runDir := filepath.Join(dir, fmt.Sprintf("run-%02d", i))
		start := time.Now()
		outcomes, err := shards.Child(ctx, runDir, r.Args...)
		if err != nil && ctx.Err() != nil && f.runs > 0 {
			fmt.Fprintf(s.Out, "\nflake-check: interrupted during run %d; the summary covers the %d finished runs\n", i, f.runs)
			return nil
		}
		if err != nil {
			return fmt.Errorf("run %d: %w", i, err)
		}
		diffs, err := f.add(i, outcomes)
		if err != nil {
			return fmt.Errorf("%w (is --golden the table of these implementations?)", err)
		}
		fmt.Fprintf(s.Out, "flake-check: run %d/%d: %d outcomes, %d differ from %s, in %s (%s)\n",
			i, r.Runs, len(outcomes), len(diffs), r.Golden, time.Since(start).Round(time.Second), runDir)
		for _, d := range diffs {
			fmt.Fprintf(s.Out, "  %s\n", d)
		}
	}
	return nil
}

// flakeCheck accumulates runs: how many, how many outcomes in all, and
// what every outcome that ever deviated did, keyed as in the golden table.
type flakeCheck struct {
	want       report.Golden
	complete   bool // every run must produce every golden outcome of its implementations
	runs       int
	outcomes   int
	deviations map[string][]string // golden key -> "run N: state" for each run that differed
}

// add records one run and returns how it differs from the golden table.
// A full run must produce every golden outcome of each implementation it
// ran; one it ran not at all (--provider local) is not compared.
func (f *flakeCheck) add(run int, outcomes []report.Outcome) ([]string, error) {
	known, compared := f.want.Targets(), 0
	for _, o := range outcomes {
		if known[o.Target] {
			compared++
		}
	}
	if compared == 0 {
		// Nothing to compare would pass every run: a check that cannot fail.
		return nil, fmt.Errorf("run %d has no outcome of an implementation the golden table knows (%s)", run, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
	}
	f.runs++
	f.outcomes += len(outcomes)
	var diffs []string
	for _, d := range f.want.Deviations(outcomes, f.complete) {
		got := d.Got
		if got == "" {
			got = "missing"
		}
		f.deviations[d.Key()] = append(f.deviations[d.Key()], fmt.Sprintf("run %d: %s", run, got))
		diffs = append(diffs, d.String())
	}
	return diffs, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (f *flakeCheck) summary(took time.Duration) string {
	var b strings.Builder
	kind := "full"
	if !f.complete {
		kind = "focused"
	}
	fmt.Fprintf(&b, "%d %s runs in %s, %d outcomes compared with the golden table: ", f.runs, kind, took.Round(time.Second), f.outcomes)
	if len(f.deviations) == 0 {
		b.WriteString("none deviated, no flake.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d deviated.\n\n| outcome | golden | runs that differed |\n|---|---|---|\n", len(f.deviations))
	keys := make([]string, 0, len(f.deviations))
	for k := range f.deviations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "| `%s` | %s | %d of %d: %s |\n", k, orNone(f.want[k]), len(f.deviations[k]), f.runs, strings.Join(f.deviations[k], ", "))
	}
	return b.String()
}

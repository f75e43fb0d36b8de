package cli

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
	"github.com/spf13/pflag"
)

// flakeCheckCmd runs the whole suite again and again, each time in a
// process and on control planes of its own, and compares every run with the
// golden outcomes: a case whose outcome ever differs is a flake (or a real
// change) and fails the check. It reports what each deviating case did in
// every run, so a flake is told from a consistent change at a glance.
func flakeCheckCmd(fs *pflag.FlagSet) action {
	runs := fs.Int("runs", 20, "how many full runs")
	golden := fs.String("golden", "docs/golden-outcomes.json", "golden outcomes every run must match")
	out := fs.String("out", "", "directory for each run's output (default: _output/flake-check-<id>)")
	summary := fs.String("summary", "", "also write the summary as Markdown to this file")
	partial := fs.Bool("partial", false, "the runs are focused (--suite, --label-filter after the flags): compare the outcomes they produce, and do not count the golden ones they leave out")
	return func(ctx context.Context, args []string, s Streams) int {
		if *runs < 1 {
			fmt.Fprintln(s.Err, "draconform: --runs must be at least 1")
			return 2
		}
		want, err := report.LoadGolden(*golden)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 1
		}
		dir, err := outputDir(*out, "flake-check-"+runner.NewRunID())
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 1
		}
		// Extra arguments after the flags go to every run (e.g. --provider local).
		runArgs := args
		fc := flakeCheck{want: want, complete: !*partial, deviations: map[string][]string{}}
		began := time.Now()
		for i := 1; i <= *runs; i++ {
			runDir := filepath.Join(dir, fmt.Sprintf("run-%02d", i))
			start := time.Now()
			outcomes, err := shards.Child(ctx, runDir, runArgs...)
			if err != nil && ctx.Err() != nil && fc.runs > 0 {
				// Interrupted: the finished runs still count, and say so.
				fmt.Fprintf(s.Out, "\nflake-check: interrupted during run %d; the summary covers the %d finished runs\n", i, fc.runs)
				break
			}
			if err != nil {
				fmt.Fprintf(s.Err, "draconform: run %d: %v\n", i, err)
				return 1
			}
			diffs, err := fc.add(i, outcomes)
			if err != nil {
				fmt.Fprintf(s.Err, "draconform: %v (is --golden the table of these implementations?)\n", err)
				return 1
			}
			fmt.Fprintf(s.Out, "flake-check: run %d/%d: %d outcomes, %d differ from %s, in %s (%s)\n",
				i, *runs, len(outcomes), len(diffs), *golden, time.Since(start).Round(time.Second), runDir)
			for _, d := range diffs {
				fmt.Fprintf(s.Out, "  %s\n", d)
			}
		}
		md := fc.summary(time.Since(began))
		fmt.Fprint(s.Out, "\n"+md)
		if *summary != "" {
			if err := os.WriteFile(*summary, []byte(md), 0o644); err != nil {
				fmt.Fprintln(s.Err, "draconform:", err)
				return 1
			}
		}
		if fc.runs < *runs {
			fmt.Fprintf(s.Err, "draconform: only %d of %d runs finished\n", fc.runs, *runs)
			return 1
		}
		if len(fc.deviations) > 0 {
			fmt.Fprintf(s.Err, "draconform: %d outcomes differed from the golden table in at least one run\n", len(fc.deviations))
			return 1
		}
		return 0
	}
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

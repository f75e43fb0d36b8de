package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// flakeCheckCmd runs the whole suite again and again and compares every
// run with the golden outcomes (usecase.FlakeCheck); extra arguments after
// the flags go to every run (e.g. --provider local).
func flakeCheckCmd(fs *pflag.FlagSet) action {
	var r usecase.FlakeCheckRequest
	fs.IntVar(&r.Runs, "runs", 20, "how many full runs")
	fs.StringVar(&r.Golden, "golden", "docs/golden-outcomes.json", "golden outcomes every run must match")
	fs.StringVar(&r.Out, "out", "", "directory for each run's output (default: _output/flake-check-<id>)")
	fs.StringVar(&r.Summary, "summary", "", "also write the summary as Markdown to this file")
	fs.BoolVar(&r.Partial, "partial", false, "the runs are focused (--suite, --label-filter after the flags): compare the outcomes they produce, and do not count the golden ones they leave out")
	return func(ctx context.Context, args []string, s Streams) int {
		r.Args = args
		res, err := usecase.FlakeCheck(ctx, r, s.uc())
		if res.Summary != "" {
			fmt.Fprint(s.Out, "\n"+res.Summary)
		}
		switch {
		case err != nil:
			return exit(s, "draconform:", err)
		case res.Finished < r.Runs:
			fmt.Fprintf(s.Err, "draconform: only %d of %d runs finished\n", res.Finished, r.Runs)
			return 1
		case res.Deviated > 0:
			fmt.Fprintf(s.Err, "draconform: %d outcomes differed from the golden table in at least one run\n", res.Deviated)
			return 1
		}
		return 0
	}
}

package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

func planCmd(fs *pflag.FlagSet) action {
	var r usecase.PlanRequest
	registerSpecs(fs, &r.Specs)
	registerFilter(fs, &r.Filter)
	fs.StringVar(&r.Focus, "focus", "", "as for run: only cases whose suite, description or id (suite/case@cell) matches this regular expression")
	fs.StringVar(&r.Labels, "label-filter", "", "as for run: a ginkgo label filter, e.g. 'suite:kep5075-capacity && !restart'")
	fs.StringVar(&r.Provider, "provider", usecase.DefaultProviders, "as for run: the implementations, which --label-filter may name (provider:<name>)")
	fs.StringVar(&r.List, "list", "", "list instead the names a flag takes, one a line: suites, cells, cases, providers or claims")
	return func(_ context.Context, _ []string, s Streams) int {
		return exit(s, "draconform:", usecase.Plan(r, s.uc()))
	}
}

func lintCmd(fs *pflag.FlagSet) action {
	var specs usecase.Specs
	registerSpecs(fs, &specs)
	return func(_ context.Context, args []string, s Streams) int {
		return exit(s, "draconform:", usecase.Lint(specs, s.uc()))
	}
}

// resultsCmd re-shows a past run from its output folder: its summary as
// the run printed it (failures with their reasons and rerun commands, the
// verdicts), judged again against --golden when given.
func resultsCmd(fs *pflag.FlagSet) action {
	var golden string
	fs.StringVar(&golden, "golden", "", "judge the run again against this table of expected outcomes, e.g. docs/golden-outcomes.json")
	return func(_ context.Context, args []string, s Streams) int {
		if len(args) != 1 {
			return printRefusal(s, refuse("results takes one argument, the output folder of a run (draconform run --out; default _output/<run id>), got %d", len(args)))
		}
		ok, err := usecase.Results(args[0], golden, s.Out)
		if err != nil {
			return exit(s, "draconform:", err)
		}
		if !ok {
			return 1
		}
		return 0
	}
}

package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/runner"
)

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
		past, err := runner.LoadPastRun(args[0])
		if err != nil {
			return printRefusal(s, refuse("%v", err))
		}
		ok, err := past.Show(s.Out, golden)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 2
		}
		if !ok {
			return 1
		}
		return 0
	}
}

// rerunFailed narrows r to the cases that failed in the run whose output
// folder is dir: a --focus on their ids and, unless --provider was given,
// the implementations they failed on. A refusal says why it cannot.
func (r *runRequest) rerunFailed(dir string, providerSet bool) *refusal {
	if r.focus != "" {
		return refuse("--rerun-failed and --focus both choose the cases: give one")
	}
	past, err := runner.LoadPastRun(dir)
	if err != nil {
		return refuse("--rerun-failed: %v", err)
	}
	failed := past.Failed()
	if len(failed) == 0 {
		return refuse("--rerun-failed %s: no case failed in that run", dir)
	}
	focus, targets := runner.FailedFocus(failed)
	r.focus = focus
	if !providerSet {
		for _, t := range targets {
			if t == "" || t == "local-bin" || t == "kubeconfig" {
				return refuse("--rerun-failed %s: cases failed on %q, which --provider alone does not give again: pass the run's --provider and its flags (--bin-dir, --kubeconfig)", dir, t)
			}
		}
		r.prov.provider = strings.Join(targets, ",")
	}
	return nil
}

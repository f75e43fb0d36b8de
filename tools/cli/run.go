package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

func runCmd(fs *pflag.FlagSet) action {
	var r usecase.RunRequest
	registerSpecs(fs, &r.Specs)
	registerFilter(fs, &r.Filter)
	registerProviders(fs, &r.Providers)
	fs.StringVar(&r.Out, "out", "", "directory for reports, logs and diagnostics (default: _output/<run id>)")
	fs.StringVar(&r.Focus, "focus", "", "run only cases whose id matches this regular expression")
	fs.StringVar(&r.Labels, "label-filter", "", "ginkgo label filter, e.g. 'suite:kep5075-capacity && !restart'")
	fs.BoolVarP(&r.Verbose, "verbose", "v", false, "print every step as it runs")
	rerunDir := fs.String("rerun-failed", "", "run only the cases that failed in the run whose output folder this is (on the implementations they failed on, unless --provider is given)")
	fs.BoolVar(&r.FailFast, "fail-fast", false, "stop after the first blocking failure: no case (or cell) begins after it, those left are reported as not run, and the run exits 1")
	fs.BoolVar(&r.KeepOnFailure, "keep-on-failure", false, "leave a failed case's namespace and the objects in it on the cluster, and say how to reach them (its cluster-scoped objects are still removed and gates restored; the embedded providers' clusters still stop with the run)")
	fs.DurationVar(&r.CaseTimeout, "case-timeout", 5*time.Minute, "bound on one case, cleanup included")
	fs.StringVar(&r.Golden, "golden", "", "table of expected outcomes (implementation, cell, case) the run must match, e.g. docs/golden-outcomes.json")
	fs.BoolVar(&r.UpdateGolden, "update-golden", false, "merge this run's outcomes into the --golden table instead of comparing")
	fs.StringVar(&r.Profile, "driver-profile", "", "a DriverProfile file naming your DRA driver, its shareable devices and what one share takes, for the driver-profile cases (default: draconform's test driver)")
	fs.BoolVar(&r.Sonobuoy, "sonobuoy", false, "run as a Sonobuoy plugin: after the run, hand the reports to Sonobuoy ($SONOBUOY_RESULTS_DIR, then its done file)")
	fs.IntVar(&r.Parallel, "parallel", 0, "cells run at once, each in a process of its own with its own cluster, on the embedded providers (default: two per core, as memory allows; 1: every cell in this process)")
	fs.IntVar(&r.CaseParallel, "case-parallel", 0, "cases of a cell run at once on its cluster (default 4; 1 with --verbose, so that steps print as they run); cases that restart a component run alone, and cases that need the kubelet node one at a time")
	fs.StringVar(&r.Shard, "shard", "", "run share i of n of the plan, e.g. 2/3: the same cost-balanced share on every machine, recorded (shard.json) for draconform merge to join; embedded providers only")
	goldenAs := fs.String("golden-as", "", "comma-separated target=implementation: compare a target's outcomes with another implementation's golden ones, e.g. prototype-static=prototype")
	return func(ctx context.Context, _ []string, s Streams) int {
		var err error
		if r.GoldenAs, err = usecase.ParseGoldenAs(*goldenAs); err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 2
		}
		// Without a table to compare with, --golden-as would compare
		// nothing and say nothing: a run meant to be checked, unchecked.
		if len(r.GoldenAs) > 0 && r.Golden == "" {
			fmt.Fprintln(s.Err, "draconform: --golden-as needs --golden, the table it compares with (e.g. --golden docs/golden-outcomes.json)")
			return 2
		}
		if r.UpdateGolden && r.Golden == "" {
			fmt.Fprintln(s.Err, "draconform: --update-golden needs --golden, the table it writes")
			return 2
		}
		if *rerunDir != "" {
			if err := r.RerunFailed(*rerunDir, fs.Changed("provider")); err != nil {
				return exit(s, "draconform:", err)
			}
		}
		r.Version, r.Command, r.Colour = buildVersion().String(), os.Args, colour(s, isTerminal, os.Getenv)
		_, err = usecase.Run(ctx, r, s.uc())
		return exit(s, "draconform:", err)
	}
}

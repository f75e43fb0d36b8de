package usecase

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/certify/sonobuoy"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/runner"
	"github.com/draconform/draconform/tools/runner/shards"
)

// RunRequest is one run of the suites, as run and certify make it.
type RunRequest struct {
	Specs     Specs
	Filter    Filter
	Providers Providers
	// Out is --out, the run's folder (default: _output/<run id>).
	Out, Focus, Labels string
	Verbose            bool
	// WholeSummary prints the run's whole text at its end, as --verbose
	// does, without running its cases one at a time (certify's log).
	WholeSummary  bool
	FailFast      bool
	KeepOnFailure bool
	CaseTimeout   time.Duration
	Golden        string
	UpdateGolden  bool
	GoldenAs      map[string]string
	Sonobuoy      bool
	Profile       string
	// Parallel is --parallel, CaseParallel --case-parallel.
	Parallel, CaseParallel int
	// Shard is --shard i/n.
	Shard string
	// Version and Command are what the run's reports record of the
	// draconform that ran it; Colour lets its display use ANSI colours.
	Version string
	Command []string
	Colour  bool
	// outLocked says the caller (certify) holds the output folder's lock
	// already.
	outLocked bool
}

// RunResult is where a run wrote, "" when it never began.
type RunResult struct {
	OutDir string
}

// Run runs the suites on every implementation the request names; its
// progress, report and refusals go to s.
func Run(ctx context.Context, r RunRequest, s Streams) (RunResult, error) {
	out, code := runSuites(ctx, r, s)
	return RunResult{OutDir: out}, said(code)
}

// defaultCaseParallel is how many cases of a cell run at once: they mostly
// wait for the scheduler and the watches, so a few overlap on 2 cores.
const defaultCaseParallel = 4

// casesAtOnce is --case-parallel, or its default.
func (r RunRequest) casesAtOnce() int {
	switch {
	case r.CaseParallel > 0:
		return r.CaseParallel
	case r.Verbose:
		return 1
	}
	return defaultCaseParallel
}

// narrowed says whether a filter selects part of the suites.
func (r RunRequest) narrowed() bool {
	return r.Focus != "" || r.Labels != "" || r.Filter.Cells != "" || r.Filter.Suites != ""
}

// runSuites runs r on every provider it names and returns the run's output
// directory ("" when it never began) and the exit code.
func runSuites(ctx context.Context, r RunRequest, s Streams) (out string, code int) {
	if rf := checkProviders(r.Providers.Provider); rf != nil {
		return "", printRefusal(s, rf)
	}
	began := time.Now().Add(-time.Second)
	defer func() {
		// The run's own process scans, once, what every cell wrote.
		if out != "" && !scanOutput(out, began, s) && code == 0 {
			code = 1
		}
	}()
	p, code := r.check(s)
	if code != 0 {
		return "", code
	}
	runID, outDir, unlock, code := r.output(s)
	if code != 0 {
		return "", code
	}
	defer unlock()
	targets, providerNames, stopAll, err := r.Providers.targets(ctx, outDir, s)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return outDir, 1
	}
	defer stopAll()
	if err := preflightAll(ctx, targets, r, outDir, s.Out); err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return outDir, 2
	}
	size := runSize(p.cases, p.focused)
	if r.Shard != "" {
		// The share is the planner's, known once the cells are costed:
		// the next line counts it.
		size = "shard " + r.Shard + " of " + size
	}
	fmt.Fprintf(s.Out, "draconform: run %s, %s on %s (%s), output %s\n", runID, size, textline.Count(len(targets), "implementation"), r.Providers.Provider, outDir)
	opts := runner.Options{Bundle: p.bundle, Plan: p.cases, Targets: targets, OutDir: outDir, RunID: runID, Log: s.Out, CaseTimeout: r.CaseTimeout,
		Golden: r.Golden, UpdateGolden: r.UpdateGolden, Complete: !r.narrowed(), GoldenAs: r.GoldenAs,
		CompareWith: map[string]string{providers.LocalBinariesTarget: "prototype"}, Profile: p.profile,
		Focus: r.Focus, LabelFilter: r.Labels, CaseParallel: r.casesAtOnce(), Version: r.Version, Command: r.Command,
		Rerun: r.Providers.RerunFlags(), Verbose: r.Verbose || r.WholeSummary, FailFast: r.FailFast,
		KeepOnFailure: r.KeepOnFailure}
	return outDir, r.execute(ctx, opts, providerNames, p.share, s)
}

// checked is what a run knows before anything is built.
type checked struct {
	bundle         *loader.Bundle
	cases, focused []plan.Case
	profile        *spec.DriverProfile
	share          shards.Share
}

// check loads the specs and the profile and selects the cases: a misspelt
// name or a filter that selects nothing is refused before anything is
// built; the runner applies --focus and --label-filter itself, to the
// cells they leave. A non-zero code says why it refused.
func (r RunRequest) check(s Streams) (checked, int) {
	b, code := r.Specs.loadOr(s)
	if b == nil {
		return checked{}, code
	}
	profile, err := r.driverProfile()
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return checked{}, 2
	}
	sel := selection{filter: r.Filter, focus: r.Focus, labels: r.Labels, targets: r.Providers.TargetNames()}
	cases, focused, rf := sel.cases(b)
	if rf != nil {
		return checked{}, printRefusal(s, rf)
	}
	c := checked{bundle: b, cases: cases, focused: focused, profile: profile}
	if r.Shard != "" {
		if c.share, err = shards.ParseShare(r.Shard); err != nil {
			return checked{}, printRefusal(s, refuse("%v", err))
		}
	}
	return c, 0
}

// runSize counts the cases and cells a run will run: those --focus and
// --label-filter let through, and of how many planned when they narrow it.
func runSize(planned, focused []plan.Case) string {
	size := textline.Count(len(focused), "case") + " in " + textline.Count(len(plan.Cells(focused)), "cell")
	if len(focused) < len(planned) {
		size += fmt.Sprintf(" (of %d planned)", len(planned))
	}
	return size
}

// execute runs the planned cases: in shard processes where the providers'
// cells can run apart (and always for --shard), else in this process.
func (r RunRequest) execute(ctx context.Context, opts runner.Options, providerNames []string, share shards.Share, s Streams) int {
	outDir := opts.OutDir
	parallel := shards.Processes(r.Parallel, opts.Targets)
	if r.Shard != "" {
		if !shards.Separable(opts.Targets) || r.Sonobuoy {
			return printRefusal(s, refuse("--shard splits a run's cells over processes, which --provider %s (or --sonobuoy) does not allow: shard with the embedded providers", r.Providers.Provider))
		}
		parallel = max(parallel, 1)
	}
	if parallel > 0 && !r.Sonobuoy {
		child, err := r.child()
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 2
		}
		return shards.Run(ctx, shards.Config{Options: opts, ProviderNames: providerNames, Parallel: parallel, Out: s.Out, Err: s.Err, Common: child,
			Share: share, Cells: r.Filter.plan().Cells})
	}
	passed, err := runner.RunInProcess(opts, runner.Display{Verbose: r.Verbose, Colour: r.Colour})
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return 2
	}
	if r.Sonobuoy && !publishSonobuoy(outDir, "", s) {
		return 1
	}
	if !passed {
		return 1
	}
	return 0
}

// publishSonobuoy hands the run's reports, and the bundle in bundleDir
// where there is one ("" for none), to Sonobuoy, and says so.
func publishSonobuoy(outDir, bundleDir string, s Streams) bool {
	results := sonobuoy.ResultsDir()
	publish := func() error { return sonobuoy.Publish(outDir, results) }
	if bundleDir != "" {
		publish = func() error { return sonobuoy.PublishBundle(outDir, bundleDir, results) }
	}
	if err := publish(); err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return false
	}
	fmt.Fprintf(s.Out, "draconform: results handed to Sonobuoy in %s\n", results)
	if bundleDir != "" {
		fmt.Fprintf(s.Out, "  the bundle in %s/%s: plugins/%s/results/global/%s in what sonobuoy retrieve fetches\n", results, sonobuoy.BundleDir, sonobuoy.PluginName, sonobuoy.BundleDir)
	}
	return true
}

// driverProfile is the --driver-profile file, or nil for the test driver.
func (r RunRequest) driverProfile() (*spec.DriverProfile, error) {
	if r.Profile == "" {
		return nil, nil
	}
	return loader.LoadProfile(r.Profile)
}

// output is the run's id and folder, from --out, locked for the run
// unless its caller (certify) holds the lock; a non-zero code says why it
// could not be made.
func (r RunRequest) output(s Streams) (runID, outDir string, unlock func(), code int) {
	runID = runner.NewRunID()
	outDir, err := outputDir(r.Out, runID)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return "", "", nil, 1
	}
	unlock = func() {}
	if !r.outLocked {
		// A run's shards write into its folder under its lock.
		if unlock, err = runner.LockOutput(outDir); err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return "", "", nil, 2
		}
	}
	return runID, outDir, unlock, 0
}

// RerunFailed narrows r to the cases that failed in the run whose output
// folder is dir: a --focus on their ids and, unless --provider was given
// (providerSet), the implementations they failed on. A refusal says why
// it cannot.
func (r *RunRequest) RerunFailed(dir string, providerSet bool) error {
	if r.Focus != "" {
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
	r.Focus = focus
	if !providerSet {
		for _, t := range targets {
			if t == "" || t == "local-bin" || t == "kubeconfig" {
				return refuse("--rerun-failed %s: cases failed on %q, which --provider alone does not give again: pass the run's --provider and its flags (--bin-dir, --kubeconfig)", dir, t)
			}
		}
		r.Providers.Provider = strings.Join(targets, ",")
	}
	return nil
}

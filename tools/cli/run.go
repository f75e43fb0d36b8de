package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/certify/sonobuoy"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
	"github.com/draconform/draconform/tools/runner/shards"
)

type planFlags struct{ cells, suites string }

func (f *planFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.cells, "cells", "", "comma-separated gate cells to run (default: every cell a case names)")
	fs.StringVar(&f.suites, "suite", "", "comma-separated suites to run (default: all)")
}

func (f *planFlags) filter() plan.Filter {
	return plan.Filter{Cells: splitList(f.cells), Suites: splitList(f.suites)}
}

// providerFlags choose the cluster providers and fill their options.
type providerFlags struct {
	provider   string
	kubeconfig providers.KubeconfigOptions
	local      providers.LocalOptions
	bins       string // parsed into local.Bins
	kind       providers.KindOptions
	// allowUnconfined: write to a visited cluster that does not confine
	// the run's writes (see preflight).
	allowUnconfined bool
}

func (f *providerFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.provider, "provider", defaultProviders, providers.Usage())
	fs.StringVar(&f.kubeconfig.Path, "kubeconfig", "", "kubeconfig for --provider kubeconfig (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&f.kubeconfig.Context, "context", "", "kubeconfig context for --provider kubeconfig")
	fs.BoolVar(&f.kubeconfig.AllowFakeNodes, "allow-fake-nodes", false, "with --provider kubeconfig: consent to Node objects with no kubelet, which most cases schedule onto; the cluster's DaemonSets that tolerate every taint put pods on them (draconform preflight lists them). Without it those cases skip")
	fs.BoolVar(&f.allowUnconfined, "allow-unconfined", false, "with --provider kubeconfig: write to the cluster even where draconform's current admission policy (draconform rbac) does not confine the credentials' writes to the run's own objects; a certify bundle records it. Without it such a run is refused")
	fs.StringVar(&f.kubeconfig.AsCell, "as-cell", "", "with --provider kubeconfig: the gate cell the cluster was configured as (it runs that cell's cases; others are skipped)")
	fs.StringVar(&f.local.Version, "k8s-version", "v1.37.2", "version of the embedded control plane's binaries (their cache key)")
	fs.StringVar(&f.local.CacheDir, "cache-dir", "", "where built binaries are kept (default: <repo>/.cache/k8s)")
	fs.StringVar(&f.kind.Cluster, "kind-cluster", "", "with --provider kind: name of the first cluster (default draconform)")
	fs.StringVar(&f.kind.Image, "kind-image", "", "with --provider kind: node image (default: kind v0.33.0's)")
	fs.StringVar(&f.kind.KEPBinDir, "kind-kep-bin-dir", "", "with --provider kind: directory of static linux kube-apiserver and kube-scheduler binaries implementing KEP-6406, run in place of the node image's")
	fs.BoolVar(&f.kind.Keep, "kind-keep", false, "with --provider kind: keep the clusters after the run")
	fs.BoolVar(&f.kind.NoDriver, "kind-no-driver", false, "with --provider kind: do not install the test driver (cases that need a kubelet are skipped)")
	fs.StringVar(&f.local.BinDir, "bin-dir", "", "with --provider local: a directory of binaries to test (kube-apiserver, kube-scheduler, kube-controller-manager, etcd: those it holds replace draconform's build); the run's target is then "+providers.LocalBinariesTarget+", which has no golden outcomes")
	fs.StringVar(&f.bins, "bin", "", "with --provider local: comma-separated component=path overrides, e.g. kube-scheduler=/src/k8s/_output/bin/kube-scheduler")
	fs.StringVar(&f.local.BinEncoding, "bin-encoding", "protobuf", "with --bin-dir/--bin: protobuf (Kubernetes' default) or json, for an implementation that, like draconform's prototype, extends only the JSON encoding")
}

// targetNames are the implementations --provider names, as a run's
// targets (and labels, provider:<name>) name them.
func (f *providerFlags) targetNames() []string {
	var out []string
	for _, name := range splitList(f.provider) {
		if name == "local" && (f.local.BinDir != "" || f.bins != "") {
			name = providers.LocalBinariesTarget
		}
		out = append(out, name)
	}
	return out
}

// rerunFlags are the flags that give a target its binaries or cluster
// again, for the rerun commands a failure prints: binaries from elsewhere
// are --provider local with their --bin-dir, --bin and --bin-encoding, a
// cluster behind a kubeconfig is named by it.
func (f *providerFlags) rerunFlags() report.RerunFlags {
	out := report.RerunFlags{}
	var local []string
	if f.local.BinDir != "" {
		local = append(local, "--bin-dir "+shellQuote(f.local.BinDir))
	}
	if f.bins != "" {
		local = append(local, "--bin "+shellQuote(f.bins))
	}
	if len(local) > 0 {
		if f.local.BinEncoding != "" && f.local.BinEncoding != "protobuf" {
			local = append(local, "--bin-encoding "+f.local.BinEncoding)
		}
		out[providers.LocalBinariesTarget] = "--provider local " + strings.Join(local, " ")
	}
	kc := []string{"--provider kubeconfig"}
	if f.kubeconfig.Path != "" {
		kc = append(kc, "--kubeconfig "+shellQuote(f.kubeconfig.Path))
	}
	if f.kubeconfig.Context != "" {
		kc = append(kc, "--context "+shellQuote(f.kubeconfig.Context))
	}
	if f.kubeconfig.AllowFakeNodes {
		kc = append(kc, "--allow-fake-nodes")
	}
	if len(kc) > 1 {
		out["kubeconfig"] = strings.Join(kc, " ")
	}
	return out
}

// oneProvider gives --provider the default and help of a command that acts
// on one implementation, where the run's "local,prototype" would only be
// refused.
func oneProvider(fs *pflag.FlagSet, def, usage string) {
	if f := fs.Lookup("provider"); f != nil {
		f.DefValue = def
		_ = f.Value.Set(def)
		f.Usage = usage
	}
}

// parseBins reads --bin: component=path pairs.
func parseBins(s string) (map[string]string, error) {
	return parsePairs("--bin", "component=path, e.g. kube-scheduler=/path/to/kube-scheduler", s)
}

func (f *providerFlags) config(name, outDir string, s Streams) (providers.Config, error) {
	bins, err := parseBins(f.bins)
	if err != nil {
		return providers.Config{}, err
	}
	local := f.local
	local.Bins = bins
	return providers.Config{Name: name, OutDir: outDir, Log: s.Out, Kubeconfig: f.kubeconfig, Local: local, Kind: f.kind}, nil
}

// targets builds what every provider named by --provider runs, all of it
// before any provider is made, so that a build that fails costs no cluster;
// each provider writes under its own folder of outDir so their cells' logs
// never mix.
func (f *providerFlags) targets(ctx context.Context, outDir string, s Streams) ([]runner.Target, []string, func(), error) {
	type pending struct {
		target, provider string
		built            *providers.Built
	}
	var todo []pending
	var cfgs []providers.Config
	var names []string
	for _, name := range splitList(f.provider) {
		cfg, err := f.config(name, "", s)
		if err != nil {
			return nil, nil, nil, err
		}
		target := name
		if cfg.Local.HasBinaries() {
			if name != "local" {
				return nil, nil, nil, fmt.Errorf("--bin-dir and --bin apply to --provider local, not %s", name)
			}
			target = providers.LocalBinariesTarget
		}
		cfg.OutDir = filepath.Join(outDir, target)
		cfgs = append(cfgs, cfg)
		names = append(names, target)
	}
	// The builds are independent; side by side (with the node's runtime)
	// only where k8sbuild.ConcurrentBuilds says so, since one after
	// another they share the build cache.
	built := make([]*providers.Built, len(cfgs))
	errs := make([]error, len(cfgs)+1)
	var wg sync.WaitGroup
	concurrent := k8sbuild.ConcurrentBuilds()
	if concurrent && providers.Embedded(cfgs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[len(cfgs)] = providers.EnsureRuntime(ctx, cfgs[0])
		}()
	}
	for i, cfg := range cfgs {
		if !concurrent {
			built[i], errs[i] = providers.Build(ctx, cfg)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			built[i], errs[i] = providers.Build(ctx, cfg)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, nil, err
	}
	for i, cfg := range cfgs {
		todo = append(todo, pending{names[i], cfg.Name, built[i]})
	}
	var targets []runner.Target
	names = nil
	var stops []func()
	stopAll := func() {
		for _, stop := range stops {
			stop()
		}
	}
	for _, t := range todo {
		p, err := t.built.New()
		if err != nil {
			stopAll()
			return nil, nil, nil, err
		}
		stops = append(stops, providers.Closer(p, s.Err))
		targets = append(targets, runner.Target{Name: t.target, Provider: p})
		names = append(names, t.provider)
	}
	return targets, names, stopAll, nil
}

func runCmd(fs *pflag.FlagSet) action {
	var r runRequest
	r.specs.register(fs)
	r.filter.register(fs)
	r.prov.register(fs)
	fs.StringVar(&r.out, "out", "", "directory for reports, logs and diagnostics (default: _output/<run id>)")
	fs.StringVar(&r.focus, "focus", "", "run only cases whose id matches this regular expression")
	fs.StringVar(&r.labels, "label-filter", "", "ginkgo label filter, e.g. 'suite:kep5075-capacity && !restart'")
	fs.BoolVarP(&r.verbose, "verbose", "v", false, "print every step as it runs")
	rerunDir := fs.String("rerun-failed", "", "run only the cases that failed in the run whose output folder this is (on the implementations they failed on, unless --provider is given)")
	fs.BoolVar(&r.failFast, "fail-fast", false, "stop after the first blocking failure: no case (or cell) begins after it, those left are reported as not run, and the run exits 1")
	fs.BoolVar(&r.keepOnFailure, "keep-on-failure", false, "leave a failed case's namespace and the objects in it on the cluster, and say how to reach them (its cluster-scoped objects are still removed and gates restored; the embedded providers' clusters still stop with the run)")
	fs.DurationVar(&r.caseTimeout, "case-timeout", 5*time.Minute, "bound on one case, cleanup included")
	fs.StringVar(&r.golden, "golden", "", "table of expected outcomes (implementation, cell, case) the run must match, e.g. docs/golden-outcomes.json")
	fs.BoolVar(&r.updateGolden, "update-golden", false, "merge this run's outcomes into the --golden table instead of comparing")
	fs.StringVar(&r.profile, "driver-profile", "", "a DriverProfile file naming your DRA driver, its shareable devices and what one share takes, for the driver-profile cases (default: draconform's test driver)")
	fs.BoolVar(&r.sonobuoy, "sonobuoy", false, "run as a Sonobuoy plugin: after the run, hand the reports to Sonobuoy ($SONOBUOY_RESULTS_DIR, then its done file)")
	fs.IntVar(&r.parallel, "parallel", 0, "cells run at once, each in a process of its own with its own cluster, on the embedded providers (default: two per core, as memory allows; 1: every cell in this process)")
	fs.IntVar(&r.caseParallel, "case-parallel", 0, "cases of a cell run at once on its cluster (default 4; 1 with --verbose, so that steps print as they run); cases that restart a component run alone, and cases that need the kubelet node one at a time")
	fs.StringVar(&r.shard, "shard", "", "run share i of n of the plan, e.g. 2/3: the same cost-balanced share on every machine, recorded (shard.json) for draconform merge to join; embedded providers only")
	goldenAs := fs.String("golden-as", "", "comma-separated target=implementation: compare a target's outcomes with another implementation's golden ones, e.g. prototype-static=prototype")
	return func(ctx context.Context, _ []string, s Streams) int {
		var err error
		if r.goldenAs, err = parseGoldenAs(*goldenAs); err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 2
		}
		// Without a table to compare with, --golden-as would compare
		// nothing and say nothing: a run meant to be checked, unchecked.
		if len(r.goldenAs) > 0 && r.golden == "" {
			fmt.Fprintln(s.Err, "draconform: --golden-as needs --golden, the table it compares with (e.g. --golden docs/golden-outcomes.json)")
			return 2
		}
		if r.updateGolden && r.golden == "" {
			fmt.Fprintln(s.Err, "draconform: --update-golden needs --golden, the table it writes")
			return 2
		}
		if *rerunDir != "" {
			if rf := r.rerunFailed(*rerunDir, fs.Changed("provider")); rf != nil {
				return printRefusal(s, rf)
			}
		}
		_, code := runSuites(ctx, r, s)
		return code
	}
}

// runRequest is one run of the suites, as run and certify make it.
type runRequest struct {
	specs              specFlags
	filter             planFlags
	prov               providerFlags
	out, focus, labels string
	verbose            bool
	// wholeSummary prints the run's whole text at its end, as --verbose
	// does, without running its cases one at a time (certify's log).
	wholeSummary bool
	failFast     bool
	// keepOnFailure is --keep-on-failure.
	keepOnFailure bool
	caseTimeout   time.Duration
	golden        string
	updateGolden  bool
	goldenAs      map[string]string
	sonobuoy      bool
	profile       string
	// parallel is --parallel.
	parallel int
	// caseParallel is --case-parallel.
	caseParallel int
	// shard is --shard i/n.
	shard string
	// outLocked says the caller (certify) holds the output folder's lock
	// already.
	outLocked bool
}

// defaultCaseParallel is how many cases of a cell run at once: they mostly
// wait for the scheduler and the watches, so a few overlap on 2 cores.
const defaultCaseParallel = 4

// casesAtOnce is --case-parallel, or its default.
func (r runRequest) casesAtOnce() int {
	switch {
	case r.caseParallel > 0:
		return r.caseParallel
	case r.verbose:
		return 1
	}
	return defaultCaseParallel
}

// narrowed says whether a filter selects part of the suites.
func (r runRequest) narrowed() bool {
	return r.focus != "" || r.labels != "" || r.filter.cells != "" || r.filter.suites != ""
}

// runSuites runs r on every provider it names and returns the run's output
// directory ("" when it never began) and the exit code.
func runSuites(ctx context.Context, r runRequest, s Streams) (out string, code int) {
	if rf := checkProviders(r.prov.provider); rf != nil {
		return "", printRefusal(s, rf)
	}
	began := time.Now().Add(-time.Second)
	defer func() {
		// The run's own process scans, once, what every cell wrote.
		if out != "" && !scanOutput(out, began, s) && code == 0 {
			code = 1
		}
	}()
	b, code := r.specs.loadOr(s)
	if b == nil {
		return "", code
	}
	profile, err := r.driverProfile()
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return "", 2
	}
	// A misspelt name or a filter that selects nothing is refused before
	// anything is built; the runner applies --focus and --label-filter
	// itself, to the cells they leave.
	sel := selection{filter: r.filter, focus: r.focus, labels: r.labels, targets: r.prov.targetNames()}
	cases, focused, rf := sel.cases(b)
	if rf != nil {
		return "", printRefusal(s, rf)
	}
	var share shards.Share
	if r.shard != "" {
		if share, err = shards.ParseShare(r.shard); err != nil {
			return "", printRefusal(s, refuse("%v", err))
		}
	}
	runID, outDir, unlock, code := r.output(s)
	if code != 0 {
		return "", code
	}
	defer unlock()
	targets, providerNames, stopAll, err := r.prov.targets(ctx, outDir, s)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return outDir, 1
	}
	defer stopAll()
	if err := preflightAll(ctx, targets, r, outDir, s.Out); err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return outDir, 2
	}
	size := runSize(cases, focused)
	if r.shard != "" {
		// The share is the planner's, known once the cells are costed:
		// the next line counts it.
		size = "shard " + r.shard + " of " + size
	}
	fmt.Fprintf(s.Out, "draconform: run %s, %s on %s (%s), output %s\n", runID, size, textline.Count(len(targets), "implementation"), r.prov.provider, outDir)
	opts := runner.Options{Bundle: b, Plan: cases, Targets: targets, OutDir: outDir, RunID: runID, Log: s.Out, CaseTimeout: r.caseTimeout,
		Golden: r.golden, UpdateGolden: r.updateGolden, Complete: !r.narrowed(), GoldenAs: r.goldenAs,
		CompareWith: map[string]string{providers.LocalBinariesTarget: "prototype"}, Profile: profile,
		Focus: r.focus, LabelFilter: r.labels, CaseParallel: r.casesAtOnce(), Version: buildVersion().String(), Command: os.Args,
		Rerun: r.prov.rerunFlags(), Verbose: r.verbose || r.wholeSummary, FailFast: r.failFast,
		KeepOnFailure: r.keepOnFailure}
	return outDir, r.execute(ctx, opts, providerNames, share, s)
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
func (r runRequest) execute(ctx context.Context, opts runner.Options, providerNames []string, share shards.Share, s Streams) int {
	outDir := opts.OutDir
	parallel := shards.Processes(r.parallel, opts.Targets)
	if r.shard != "" {
		if !shards.Separable(opts.Targets) || r.sonobuoy {
			return printRefusal(s, refuse("--shard splits a run's cells over processes, which --provider %s (or --sonobuoy) does not allow: shard with the embedded providers", r.prov.provider))
		}
		parallel = max(parallel, 1)
	}
	if parallel > 0 && !r.sonobuoy {
		child, err := r.child()
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 2
		}
		return shards.Run(ctx, shards.Config{Options: opts, ProviderNames: providerNames, Parallel: parallel, Out: s.Out, Err: s.Err, Common: child,
			Share: share, Cells: r.filter.filter().Cells})
	}
	passed, err := runner.RunInProcess(opts, runner.Display{Verbose: r.verbose, Colour: colour(s, isTerminal, os.Getenv)})
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return 2
	}
	if r.sonobuoy && !publishSonobuoy(outDir, s) {
		return 1
	}
	if !passed {
		return 1
	}
	return 0
}

// publishSonobuoy hands the run's reports to Sonobuoy, and says so.
func publishSonobuoy(outDir string, s Streams) bool {
	if err := sonobuoy.Publish(outDir, sonobuoy.ResultsDir()); err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return false
	}
	fmt.Fprintf(s.Out, "draconform: results handed to Sonobuoy in %s\n", sonobuoy.ResultsDir())
	return true
}

// driverProfile is the --driver-profile file, or nil for the test driver.
func (r runRequest) driverProfile() (*spec.DriverProfile, error) {
	if r.profile == "" {
		return nil, nil
	}
	return loader.LoadProfile(r.profile)
}

// output is the run's id and folder, from --out, locked for the run
// unless its caller (certify) holds the lock; a non-zero code says why it
// could not be made.
func (r runRequest) output(s Streams) (runID, outDir string, unlock func(), code int) {
	runID = runner.NewRunID()
	outDir, err := outputDir(r.out, runID)
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

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseGoldenAs reads --golden-as: target=implementation pairs.
func parseGoldenAs(s string) (map[string]string, error) {
	return parsePairs("--golden-as", "target=implementation, e.g. prototype-static=prototype", s)
}

// parsePairs reads a comma-separated list of key=value pairs of a flag.
func parsePairs(flag, want, s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range splitList(s) {
		k, v, ok := strings.Cut(pair, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%s %q: want %s", flag, pair, want)
		}
		out[k] = v
	}
	return out, nil
}

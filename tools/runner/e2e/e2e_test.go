// Package e2e runs the whole suite under go test (and the ginkgo CLI, which
// adds -p): on the embedded v1.37.2 control plane by default, or on any
// cluster with -draconform.provider=kubeconfig.
package e2e

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/certify/secretscan"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner"
	"github.com/draconform/draconform/tools/runner/shards"
)

var (
	provider   = flag.String("draconform.provider", "local,prototype", "comma-separated providers: local, prototype, kubeconfig, or a mutant (prototype-<name>, see draconform mutation)")
	kubeconfig = flag.String("draconform.kubeconfig", "", "kubeconfig for the kubeconfig provider")
	version    = flag.String("draconform.k8s-version", "v1.37.2", "embedded control plane version")
	outDir     = flag.String("draconform.out", "", "output directory (default: <repo>/_output/e2e)")
	cells      = flag.String("draconform.cells", "", "comma-separated cells (default: all)")
	golden     = flag.String("draconform.golden", filepath.Join("..", "..", "..", "docs", "golden-outcomes.json"), "golden outcomes the run must match (empty: none)")
	parallel   = flag.Int("draconform.parallel", 0, "on the embedded providers, cells at once, each in a process of its own, as draconform run does it (0: as many as it chooses); 1 runs every cell in this process, under ginkgo (and its CLI's -p)")
)

// TestMain lets this test binary stand in for draconform when a sharded run
// starts its cells as processes of its own binary, each with its request.
func TestMain(m *testing.M) {
	if code, served := shards.ServeChild(context.Background(), os.Stdout, os.Stderr); served {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// embedded says whether every provider of the run starts its own clusters.
func embedded(providers string) bool {
	for _, p := range strings.Split(providers, ",") {
		if p == "kubeconfig" || p == "kind" {
			return false
		}
	}
	return true
}

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite starts a control plane; skipped with -short")
	}
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatalf("loading suites:\n%v", err)
	}
	out := *outDir
	if out == "" {
		out = filepath.Join("..", "..", "..", "_output", "e2e")
	}
	if out, err = filepath.Abs(out); err == nil {
		err = os.MkdirAll(out, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var targets []runner.Target
	names := strings.Split(*provider, ",")
	for _, name := range names {
		p, err := providers.New(ctx, providers.Config{Name: name, OutDir: filepath.Join(out, name), Log: os.Stdout,
			Kubeconfig: providers.KubeconfigOptions{Path: *kubeconfig}, Local: providers.LocalOptions{Version: *version}})
		if err != nil {
			t.Fatal(err)
		}
		defer providers.Closer(p, os.Stdout)()
		targets = append(targets, runner.Target{Name: name, Provider: p})
	}
	var filter plan.Filter
	if *cells != "" {
		filter.Cells = strings.Split(*cells, ",")
	}
	opts := runner.Options{Bundle: b, Plan: plan.Expand(b, filter), Targets: targets, OutDir: out,
		RunID: runner.NewRunID(), Log: os.Stdout, Golden: *golden}
	if n := shards.Processes(*parallel, targets); n > 0 && embedded(*provider) && *kubeconfig == "" {
		// As `make conformance` runs it: each cell in a process of its
		// own, side by side, the parent merging their reports.
		opts.Complete = *cells == ""
		opts.CaseTimeout, opts.CaseParallel = 5*time.Minute, 4
		cfg := shards.Config{Options: opts, ProviderNames: names, Parallel: n, Out: os.Stdout, Err: os.Stdout,
			Common: shards.Common{Local: providers.LocalOptions{Version: *version}}}
		if code := shards.Run(ctx, cfg); code != 0 {
			t.Errorf("the sharded run of %s: exit %d", *provider, code)
			logFailures(t, out)
		}
		scanOutput(t, out, began)
		checkVerdictSample(t, out, opts.Complete)
		return
	}
	suiteCfg, _ := ginkgo.GinkgoConfiguration()
	opts.Complete = !(*cells != "" || len(suiteCfg.FocusStrings) > 0 || len(suiteCfg.SkipStrings) > 0 || suiteCfg.LabelFilter != "")
	if err := runner.Register(opts); err != nil {
		t.Fatal(err)
	}
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "draconform")
	scanOutput(t, out, began)
	checkVerdictSample(t, out, opts.Complete)
}

// scanOutput fails on any credential in the run's output folder: it is what
// CI uploads and bundles are made from.
func scanOutput(t *testing.T, out string, began time.Time) {
	t.Helper()
	leaks, err := secretscan.Scan(out, began)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		t.Errorf("credential in the run's output: %s", l)
	}
}

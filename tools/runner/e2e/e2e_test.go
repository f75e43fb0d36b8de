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
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/loader"
	"github.com/draconform/draconform/tools/plan"
	"github.com/draconform/draconform/tools/runner"
	"github.com/draconform/draconform/tools/secretscan"
)

var (
	provider   = flag.String("draconform.provider", "local,prototype", "comma-separated providers: local, prototype, kubeconfig, or a mutant (prototype-<name>, see draconform mutation)")
	kubeconfig = flag.String("draconform.kubeconfig", "", "kubeconfig for the kubeconfig provider")
	version    = flag.String("draconform.k8s-version", "v1.37.2", "embedded control plane version")
	outDir     = flag.String("draconform.out", "", "output directory (default: <repo>/_output/e2e)")
	cells      = flag.String("draconform.cells", "", "comma-separated cells (default: all)")
	golden     = flag.String("draconform.golden", filepath.Join("..", "..", "..", "docs", "golden-outcomes.json"), "golden outcomes the run must match (empty: none)")
)

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite starts a control plane; skipped with -short")
	}
	b, err := loader.Load(suites.FS, fixtures.FS)
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
	for _, name := range strings.Split(*provider, ",") {
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
	suiteCfg, _ := ginkgo.GinkgoConfiguration()
	narrowed := *cells != "" || len(suiteCfg.FocusStrings) > 0 || len(suiteCfg.SkipStrings) > 0 || suiteCfg.LabelFilter != ""
	runner.Register(runner.Options{
		Bundle: b, Plan: plan.Expand(b, filter), Targets: targets, OutDir: out,
		RunID: runner.NewRunID(), Log: os.Stdout, Golden: *golden, Complete: !narrowed,
	})
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "draconform")
	// The output folder is what CI uploads and bundles are made from: no
	// kubeconfig, key or token of the run may be in it.
	leaks, err := secretscan.Scan(out, began)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		t.Errorf("credential in the run's output: %s", l)
	}
}

package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// benchCmd measures draconform's own speed (usecase.Bench); arguments
// after the flags go to each warm run.
func benchCmd(fs *pflag.FlagSet) action {
	var r usecase.BenchRequest
	fs.IntVar(&r.Runs, "runs", 5, "how many runs of the matrix (warm)")
	fs.StringVar(&r.Golden, "golden", "docs/golden-outcomes.json", "golden outcomes each run is compared with (a run that differs is marked, its figures kept)")
	fs.StringVar(&r.MD, "md", "docs/bench.md", "Markdown to write")
	fs.StringVar(&r.Data, "data", "docs/bench.json", "figures to write, and read for the comparison")
	fs.StringVar(&r.Out, "out", "", "directory for each run's output (default: _output/bench-<id>)")
	fs.BoolVar(&r.Cold, "cold", false, "measure a newcomer's first `make conformance` instead: a clean clone of the committed HEAD with empty Go module, Go build and binary caches, with the CPU use over time")
	fs.IntVar(&r.StartPairs, "start-pairs", 3, "cell starts measured against a bare kube-apiserver and etcd, in turns, for the start ratio (0: none)")
	fs.IntVar(&r.VendorTests, "vendor-tests", 5, "e2e-framework tests' overhead measured after certify on a running cluster, for the vendor ratio (0: no vendor path)")
	fs.StringVar(&r.VendorProvider, "vendor-provider", "prototype", "the embedded provider `up --node` runs for the vendor ratio")
	fs.StringVar(&r.VendorCell, "vendor-cell", "capacity-on", "the cell `up --node` starts and certify claims for the vendor ratio")
	fs.StringVar(&r.VendorClaim, "vendor-claim", "kep6406-gates-on", "the claim certify checks for the vendor ratio")
	fs.BoolVar(&r.WarmRecord, "warm-record", true, "record the warm runs' figures (false: only the ratios, the case ratio among them, e.g. from a matrix narrowed by arguments after --)")
	registerCost(fs, &r.Cost)
	return func(ctx context.Context, args []string, s Streams) int {
		r.Args = args
		return exit(s, "draconform bench:", usecase.Bench(ctx, r, s.uc()))
	}
}

// registerCost registers the flags of bench --scheduler-cost.
func registerCost(fs *pflag.FlagSet, f *usecase.SchedulerCost) {
	fs.BoolVar(&f.On, "scheduler-cost", false, "measure instead what extendedResourceCapacityRequests costs the scheduler: one embedded cluster, pods of a class with the field and of the same class without it in alternating batches, the scheduler's attempt, SLI and DynamicResources plugin times and the API server's DeviceClass requests for each side")
	fs.StringVar(&f.Provider, "cost-provider", "prototype", "with --scheduler-cost: the embedded implementation to measure (one that serves the field)")
	fs.StringVar(&f.Cell, "cost-cell", "capacity-on", "with --scheduler-cost: the cell whose gates the cluster runs with")
	fs.StringVar(&f.Version, "k8s-version", "v1.37.2", "with --scheduler-cost: version of the embedded control plane's binaries (their cache key)")
	fs.StringVar(&f.CacheDir, "cache-dir", "", "with --scheduler-cost: where built binaries are kept (default: <repo>/.cache/k8s)")
	fs.IntVar(&f.Pods, "cost-pods", 30, "with --scheduler-cost: pods of each side")
	fs.IntVar(&f.Batch, "cost-batch", 5, "with --scheduler-cost: pods of one side created together before the other side's turn")
	fs.IntVar(&f.Nodes, "cost-nodes", 2, "with --scheduler-cost: fake nodes")
	fs.IntVar(&f.DevicesPerNode, "cost-devices", 32, "with --scheduler-cost: shareable devices on each fake node")
}

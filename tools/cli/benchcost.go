package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/quality/bench"
)

// costFlags select `draconform bench --scheduler-cost`: one embedded
// cluster, pods of a class with the KEP's field and of one without,
// side by side (bench.MeasureSchedCost).
type costFlags struct {
	on                    bool
	provider, cell        string
	version, cacheDir     string
	pods, batch           int
	nodes, devicesPerNode int
}

func (f *costFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.on, "scheduler-cost", false, "measure instead what extendedResourceCapacityRequests costs the scheduler: one embedded cluster, pods of a class with the field and of the same class without it in alternating batches, the scheduler's attempt, SLI and DynamicResources plugin times and the API server's DeviceClass requests for each side")
	fs.StringVar(&f.provider, "cost-provider", "prototype", "with --scheduler-cost: the embedded implementation to measure (one that serves the field)")
	fs.StringVar(&f.cell, "cost-cell", "capacity-on", "with --scheduler-cost: the cell whose gates the cluster runs with")
	fs.StringVar(&f.version, "k8s-version", "v1.37.2", "with --scheduler-cost: version of the embedded control plane's binaries (their cache key)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "with --scheduler-cost: where built binaries are kept (default: <repo>/.cache/k8s)")
	fs.IntVar(&f.pods, "cost-pods", 30, "with --scheduler-cost: pods of each side")
	fs.IntVar(&f.batch, "cost-batch", 5, "with --scheduler-cost: pods of one side created together before the other side's turn")
	fs.IntVar(&f.nodes, "cost-nodes", 2, "with --scheduler-cost: fake nodes")
	fs.IntVar(&f.devicesPerNode, "cost-devices", 32, "with --scheduler-cost: shareable devices on each fake node")
}

// measure starts the cluster, runs the workload and stops the cluster.
func (f *costFlags) measure(ctx context.Context, dir string, s Streams) (*bench.SchedCost, error) {
	if f.pods < 1 || f.batch < 1 || f.nodes < 1 || f.devicesPerNode < 1 {
		return nil, fmt.Errorf("--cost-pods, --cost-batch, --cost-nodes and --cost-devices must be at least 1")
	}
	// A pod without the field takes a whole device: fewer devices than
	// pods would leave that side pending and measure nothing.
	if f.nodes*f.devicesPerNode < f.pods {
		return nil, fmt.Errorf("%d devices for %d pods a side: each pod without the field takes a device of its own", f.nodes*f.devicesPerNode, f.pods)
	}
	b, err := (&specFlags{}).load()
	if err != nil {
		return nil, err
	}
	cell, ok := b.Cells[f.cell]
	if !ok {
		return nil, fmt.Errorf("unknown cell %q (cells: %v)", f.cell, b.CellOrder)
	}
	p, err := providers.New(ctx, providers.Config{Name: f.provider, OutDir: filepath.Join(dir, f.provider), Log: s.Out,
		Local: providers.LocalOptions{Version: f.version, CacheDir: f.cacheDir}})
	if err != nil {
		return nil, err
	}
	defer providers.Closer(p, s.Err)()
	c, err := cluster.StartCell(ctx, p, cell.Name, cluster.CellGates(cell), cluster.CellReleased(cell))
	if err != nil {
		return nil, fmt.Errorf("starting %s/%s: %w", f.provider, f.cell, err)
	}
	fmt.Fprintf(s.Out, "bench: scheduler cost on %s, %d pods a side in batches of %d; logs in %s\n", c.Name(), f.pods, f.batch, dir)
	with, without, err := bench.MeasureSchedCost(ctx, c, bench.CostOptions{Pods: f.pods, Batch: f.batch, Nodes: f.nodes, DevicesPerNode: f.devicesPerNode, Log: s.Out})
	if err != nil {
		return nil, err
	}
	if err := p.Stop(ctx, c); err != nil {
		fmt.Fprintf(s.Err, "draconform bench: stopping %s: %v\n", c.Name(), err)
	}
	return &bench.SchedCost{Date: time.Now().UTC().Format("2006-01-02"), Commit: commit(), Provider: f.provider, Cell: f.cell,
		Batch: f.batch, Devices: f.nodes * f.devicesPerNode, With: with, Without: without}, nil
}

// ratioCounts size the ratios' measurements; load is the machine's load
// average when the bench began.
type ratioCounts struct {
	startPairs, vendorTests                 int
	vendorProvider, vendorCell, vendorClaim string
	load                                    float64
}

// ratiosBench measures the speed ratios side by side: the case ratio from
// the warm runs, the start ratio on the local provider's defaults cell,
// the vendor ratio on an up --node cluster (prototype, capacity-on by
// default). A ratio that cannot
// be measured is said and left out.
func ratiosBench(ctx context.Context, dir string, w *bench.Warm, n ratioCounts, cost *costFlags, s Streams) *bench.Ratios {
	r := &bench.Ratios{Date: time.Now().UTC().Format("2006-01-02"), Commit: commit(), Load: n.load, Cores: runtime.NumCPU()}
	if w != nil {
		r.Case = bench.CaseRatio(w.Runs)
		r.Matrix = "draconform run " + strings.Join(w.Args, " ")
		r.Ran = fmt.Sprintf("the matrix %s (`%s`)", textline.Count(len(w.Runs), "time"), r.Matrix)
	}
	if n.vendorTests > 0 {
		r.VendorPath = fmt.Sprintf("%s/%s, claim %s", n.vendorProvider, n.vendorCell, n.vendorClaim)
		r.Ran = strings.TrimPrefix(fmt.Sprintf("%s; the vendor path on %s", r.Ran, r.VendorPath), "; ")
	}
	if n.startPairs > 0 {
		var err error
		if r.Start, err = startRatio(ctx, filepath.Join(dir, "start"), n.startPairs, cost, s); err != nil {
			fmt.Fprintln(s.Err, "draconform bench: start ratio:", err)
		}
	}
	if n.vendorTests > 0 {
		self, err := os.Executable()
		if err == nil {
			vdir := filepath.Join(dir, "vendor")
			if err = os.MkdirAll(vdir, 0o755); err == nil {
				r.Vendor, r.Overhead, err = bench.MeasureVendor(ctx, bench.VendorOptions{Self: self, Dir: vdir, Provider: n.vendorProvider, Cell: n.vendorCell,
					Claim: n.vendorClaim, Tests: n.vendorTests, Log: s.Out, UpWithin: 10 * time.Minute})
			}
		}
		if err != nil {
			fmt.Fprintln(s.Err, "draconform bench: vendor ratio:", err)
		}
	}
	return r
}

// startRatio starts the local provider's defaults cell against a bare
// kube-apiserver and etcd from the same binaries.
func startRatio(ctx context.Context, dir string, pairs int, cost *costFlags, s Streams) (*bench.SpeedRatio, error) {
	_, cacheDir, err := k8sbuild.Dirs("", cost.cacheDir)
	if err != nil {
		return nil, err
	}
	b, err := (&specFlags{}).load()
	if err != nil {
		return nil, err
	}
	cell, ok := b.Cells["defaults"]
	if !ok {
		return nil, fmt.Errorf("no cell defaults")
	}
	lines := bench.NewLineTimes()
	p, err := providers.New(ctx, providers.Config{Name: "local", OutDir: dir, Log: io.MultiWriter(s.Out, lines),
		Local: providers.LocalOptions{Version: cost.version, CacheDir: cost.cacheDir}})
	if err != nil {
		return nil, err
	}
	defer providers.Closer(p, s.Err)()
	return bench.MeasureStart(ctx, bench.StartOptions{Provider: p, Cell: cell.Name, Gates: cluster.CellGates(cell), Lines: lines,
		BinDir: filepath.Join(cacheDir, cost.version, "bin"), Dir: dir, Pairs: pairs, Log: s.Out})
}

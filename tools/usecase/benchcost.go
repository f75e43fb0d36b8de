package usecase

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/quality/bench"
)

// SchedulerCost selects `draconform bench --scheduler-cost`: one embedded
// cluster, pods of a class with the KEP's field and of one without,
// side by side (bench.MeasureSchedCost).
type SchedulerCost struct {
	On                    bool
	Provider, Cell        string
	Version, CacheDir     string
	Pods, Batch           int
	Nodes, DevicesPerNode int
}

// measure starts the cluster, runs the workload and stops the cluster.
func (f *SchedulerCost) measure(ctx context.Context, dir string, s Streams) (*bench.SchedCost, error) {
	if f.Pods < 1 || f.Batch < 1 || f.Nodes < 1 || f.DevicesPerNode < 1 {
		return nil, fmt.Errorf("--cost-pods, --cost-batch, --cost-nodes and --cost-devices must be at least 1")
	}
	// A pod without the field takes a whole device: fewer devices than
	// pods would leave that side pending and measure nothing.
	if f.Nodes*f.DevicesPerNode < f.Pods {
		return nil, fmt.Errorf("%d devices for %d pods a side: each pod without the field takes a device of its own", f.Nodes*f.DevicesPerNode, f.Pods)
	}
	b, err := Specs{}.load()
	if err != nil {
		return nil, err
	}
	cell, ok := b.Cells[f.Cell]
	if !ok {
		return nil, fmt.Errorf("unknown cell %q (cells: %v)", f.Cell, b.CellOrder)
	}
	p, err := providers.New(ctx, providers.Config{Name: f.Provider, OutDir: filepath.Join(dir, f.Provider), Log: s.Out,
		Local: providers.LocalOptions{Version: f.Version, CacheDir: f.CacheDir}})
	if err != nil {
		return nil, err
	}
	defer providers.Closer(p, s.Err)()
	c, err := cluster.StartCell(ctx, p, cell.Name, cluster.CellGates(cell), cluster.CellReleased(cell))
	if err != nil {
		return nil, fmt.Errorf("starting %s/%s: %w", f.Provider, f.Cell, err)
	}
	fmt.Fprintf(s.Out, "bench: scheduler cost on %s, %d pods a side in batches of %d; logs in %s\n", c.Name(), f.Pods, f.Batch, dir)
	with, without, err := bench.MeasureSchedCost(ctx, c, bench.CostOptions{Pods: f.Pods, Batch: f.Batch, Nodes: f.Nodes, DevicesPerNode: f.DevicesPerNode, Log: s.Out})
	if err != nil {
		return nil, err
	}
	if err := p.Stop(ctx, c); err != nil {
		fmt.Fprintf(s.Err, "draconform bench: stopping %s: %v\n", c.Name(), err)
	}
	return &bench.SchedCost{Date: time.Now().UTC().Format("2006-01-02"), Commit: commit(), Provider: f.Provider, Cell: f.Cell,
		Batch: f.Batch, Devices: f.Nodes * f.DevicesPerNode, With: with, Without: without}, nil
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
func ratiosBench(ctx context.Context, dir string, w *bench.Warm, n ratioCounts, cost *SchedulerCost, s Streams) *bench.Ratios {
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
func startRatio(ctx context.Context, dir string, pairs int, cost *SchedulerCost, s Streams) (*bench.SpeedRatio, error) {
	_, cacheDir, err := k8sbuild.Dirs("", cost.CacheDir)
	if err != nil {
		return nil, err
	}
	b, err := Specs{}.load()
	if err != nil {
		return nil, err
	}
	cell, ok := b.Cells["defaults"]
	if !ok {
		return nil, fmt.Errorf("no cell defaults")
	}
	lines := bench.NewLineTimes()
	p, err := providers.New(ctx, providers.Config{Name: "local", OutDir: dir, Log: io.MultiWriter(s.Out, lines),
		Local: providers.LocalOptions{Version: cost.Version, CacheDir: cost.CacheDir}})
	if err != nil {
		return nil, err
	}
	defer providers.Closer(p, s.Err)()
	return bench.MeasureStart(ctx, bench.StartOptions{Provider: p, Cell: cell.Name, Gates: cluster.CellGates(cell), Lines: lines,
		BinDir: filepath.Join(cacheDir, cost.Version, "bin"), Dir: dir, Pairs: pairs, Log: s.Out})
}

// Package shards runs a plan as several processes, each a cell (or part
// of one) of one implementation on a cluster of its own, and merges what
// they wrote into one run: the plan of processes and its cost model, the
// processes' environment, the run itself, and single child runs for the
// commands that judge whole runs (mutation, flake check).
package shards

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner"
)

// Shard is one process of a sharded run: one cell of one implementation,
// or part of one, on a cluster of its own.
type Shard struct {
	// Provider is the --provider the process runs; Target the name its
	// outcomes carry.
	Provider, Target, Cell string
	// Part and Parts number a cell split over several processes (1 of 1
	// when it is not); IDs are the cases of this part, none when whole.
	Part, Parts int
	IDs         []string
	// Cost is the estimated seconds of the shard, start-up included.
	Cost float64
}

// Key is the cell the shard runs, which its parts share.
func (sh Shard) Key() string { return sh.Target + "/" + sh.Cell }

// Name is the shard as progress lines name it.
func (sh Shard) Name() string {
	if sh.Parts > 1 {
		return fmt.Sprintf("%s (part %d of %d)", sh.Key(), sh.Part, sh.Parts)
	}
	return sh.Key()
}

// Slug names the shard's log and report files.
func (sh Shard) Slug() string {
	if sh.Parts > 1 {
		return fmt.Sprintf("%s-%s-%dof%d", sh.Target, sh.Cell, sh.Part, sh.Parts)
	}
	return sh.Target + "-" + sh.Cell
}

// Rough costs in seconds, measured on 2 cores with 4 cells at a time: a
// cell's control plane starts in 15 to 25 s, a kubelet node adds 10; a
// case takes 1.5 s in the median, a case that restarts a component 10.
const (
	costStart   = 15.0
	costNode    = 10.0
	costCase    = 1.5
	costRestart = 10.0
	// partBudget is the most a part of a cell should cost: a longer cell
	// is split, so that one cell does not set the run's wall time alone.
	partBudget = 45.0
	maxParts   = 4
)

// AutoParallel is how many cells run at once when --parallel is not given:
// two per core, since a cell's processes mostly wait (on each other, on
// etcd, on the kubelet); and no more than memory allows at about 1.5 GiB
// per cell with its node. Three per core was tried on 2 cores (2026-12-04):
// faster in four runs, slower in a 5-run bench and the pair after it; 8 at
// a time was slower throughout.
func AutoParallel() int {
	n := 2 * runtime.NumCPU()
	if mem := k8sbuild.MemTotal(); mem > 0 {
		n = min(n, max(1, int(mem/(1536<<20))))
	}
	return max(n, 1)
}

// Separable says whether every target may run its cells in processes of
// their own.
func Separable(targets []runner.Target) bool {
	for _, t := range targets {
		if !t.Provider.Info().SeparateCells {
			return false
		}
	}
	return len(targets) > 0
}

// CellSupport says which cells each target cannot start, asking the
// providers (which read their binaries' gates, starting nothing); a cell
// it cannot tell about counts as startable.
func CellSupport(ctx context.Context, opts runner.Options) func(target string, cell *plan.Case) bool {
	unsupported := map[string]bool{}
	for _, t := range opts.Targets {
		if !t.Provider.Info().ChecksGates {
			continue
		}
		for _, c := range plan.Cells(opts.Plan) {
			why, err := t.Provider.CellUnsupported(ctx, cluster.CellGates(c), cluster.CellReleased(c))
			unsupported[t.Name+"/"+c.Name] = err == nil && why != ""
		}
	}
	return func(target string, c *plan.Case) bool { return !unsupported[target+"/"+c.Cell.Name] }
}

// Plan lists the shards of a run, the costliest first, so that no
// long cell starts last and sets the wall time. A cell that costs more
// than partBudget is split into parts, each on a cluster of its own: the
// cases that need a kubelet stay together in the first part, so that
// only it starts a node; the rest go to the part with the least cost so
// far, the costliest first. A restart affects only its own part's
// cluster, so restart cases may go to any part. startable says whether a
// target can start a cell at all: the cases of one it cannot only skip,
// in one cheap process.
func Plan(cases []plan.Case, targets []runner.Target, providerNames []string, startable func(string, *plan.Case) bool, selected func(plan.Case) bool, width int) []Shard {
	var out []Shard
	for i, t := range targets {
		for _, cell := range plan.Cells(cases) {
			var mine []plan.Case
			for _, c := range cases {
				if c.Cell.Name == cell.Name && (c.Target == "" || c.Target == t.Name) && selected(c.ForTarget(t.Name)) {
					mine = append(mine, c)
				}
			}
			if len(mine) == 0 {
				continue
			}
			base := Shard{Provider: providerNames[i], Target: t.Name, Cell: cell.Name, Part: 1, Parts: 1}
			if !startable(t.Name, &mine[0]) {
				out = append(out, base)
				continue
			}
			out = append(out, splitCell(base, mine, width)...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Cost > out[j].Cost })
	return out
}

// caseCost is what a case adds to its process's wall time, where width
// cases run at once: a case that needs the cluster to itself adds all it
// takes (the windows it watches, a restart), another a share of its time.
func caseCost(c plan.Case, width int) float64 {
	switch {
	case c.Serial:
		return costRestart
	case c.Alone:
		return costCase + watchedSeconds(c)
	}
	return costCase / float64(max(1, min(width, costOverlap)))
}

// costOverlap is how many cases at once make a cell go faster on 2 cores:
// beyond it, they wait for the CPU rather than for each other.
const costOverlap = 2

// watchedSeconds are the windows a case's steps watch for, as each step
// kind declares in the registry (steps.Actions).
func watchedSeconds(c plan.Case) float64 {
	return steps.Watched(c.Case).Seconds()
}

// splitCell gives one cell's cases to as many parts as its cost needs.
func splitCell(base Shard, cases []plan.Case, width int) []Shard {
	caseCost := func(c plan.Case) float64 { return caseCost(c, width) }
	total, node := costStart, false
	for _, c := range cases {
		total += caseCost(c)
		node = node || c.Case.Requires.Kubelet()
	}
	if node {
		total += costNode
	}
	n := int(math.Ceil(total / partBudget))
	n = max(1, min(n, maxParts, len(cases)))
	if n == 1 {
		base.Cost = total
		return []Shard{base}
	}
	parts := make([]Shard, n)
	for i := range parts {
		parts[i] = base
		parts[i].Part, parts[i].Parts, parts[i].Cost = i+1, n, costStart
	}
	var rest []plan.Case
	for _, c := range cases {
		if c.Case.Requires.Kubelet() {
			parts[0].IDs = append(parts[0].IDs, c.ID)
			parts[0].Cost += caseCost(c)
			continue
		}
		rest = append(rest, c)
	}
	if len(parts[0].IDs) > 0 {
		parts[0].Cost += costNode
	}
	sort.SliceStable(rest, func(i, j int) bool { return caseCost(rest[i]) > caseCost(rest[j]) })
	for _, c := range rest {
		least := 0
		for j := range parts {
			if parts[j].Cost < parts[least].Cost {
				least = j
			}
		}
		parts[least].IDs = append(parts[least].IDs, c.ID)
		parts[least].Cost += caseCost(c)
	}
	parts = slices.DeleteFunc(parts, func(sh Shard) bool { return len(sh.IDs) == 0 })
	for i := range parts {
		parts[i].Part, parts[i].Parts = i+1, len(parts)
	}
	return parts
}

package cli

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner"
)

// shard is one process of a sharded run: one cell of one implementation,
// or part of one, on a cluster of its own.
type shard struct {
	provider, target, cell string
	// part and parts number a cell split over several processes (1 of 1
	// when it is not); ids are the cases of this part, none when whole.
	part, parts int
	ids         []string
	// cost is the estimated seconds of the shard, start-up included.
	cost float64
}

// key is the cell the shard runs, which its parts share.
func (sh shard) key() string { return sh.target + "/" + sh.cell }

func (sh shard) name() string {
	if sh.parts > 1 {
		return fmt.Sprintf("%s (part %d of %d)", sh.key(), sh.part, sh.parts)
	}
	return sh.key()
}

func (sh shard) slug() string {
	if sh.parts > 1 {
		return fmt.Sprintf("%s-%s-%dof%d", sh.target, sh.cell, sh.part, sh.parts)
	}
	return sh.target + "-" + sh.cell
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

// autoParallel is how many cells run at once when --parallel is not given:
// two per core, since a cell's processes mostly wait (on each other, on
// etcd, on the kubelet); and no more than memory allows at about 1.5 GiB
// per cell with its node. Three per core was tried on 2 cores (2026-12-04):
// faster in four runs, slower in a 5-run bench and the pair after it; 8 at
// a time was slower throughout.
func autoParallel() int {
	n := 2 * runtime.NumCPU()
	if mem := k8sbuild.MemTotal(); mem > 0 {
		n = min(n, max(1, int(mem/(1536<<20))))
	}
	return max(n, 1)
}

// separable says whether every target may run its cells in processes of
// their own.
func separable(targets []runner.Target) bool {
	for _, t := range targets {
		if _, ok := t.Provider.(cluster.SeparateCells); !ok {
			return false
		}
	}
	return len(targets) > 0
}

// cellSupport says which cells each target cannot start, asking the
// providers (which read their binaries' gates, starting nothing); a cell
// it cannot tell about counts as startable.
func cellSupport(ctx context.Context, opts runner.Options) func(target string, cell *plan.Case) bool {
	unsupported := map[string]bool{}
	for _, t := range opts.Targets {
		sc, ok := t.Provider.(cluster.SeparateCells)
		if !ok {
			continue
		}
		for _, c := range plan.Cells(opts.Plan) {
			why, err := sc.CellUnsupported(ctx, cluster.CellGates(c), cluster.CellReleased(c))
			unsupported[t.Name+"/"+c.Name] = err == nil && why != ""
		}
	}
	return func(target string, c *plan.Case) bool { return !unsupported[target+"/"+c.Cell.Name] }
}

// planShards lists the shards of a run, the costliest first, so that no
// long cell starts last and sets the wall time. A cell that costs more
// than partBudget is split into parts, each on a cluster of its own: the
// cases that need a kubelet stay together in the first part, so that
// only it starts a node; the rest go to the part with the least cost so
// far, the costliest first. A restart affects only its own part's
// cluster, so restart cases may go to any part. startable says whether a
// target can start a cell at all: the cases of one it cannot only skip,
// in one cheap process.
func planShards(cases []plan.Case, targets []runner.Target, providerNames []string, startable func(string, *plan.Case) bool, selected func(plan.Case) bool, width int) []shard {
	var out []shard
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
			base := shard{provider: providerNames[i], target: t.Name, cell: cell.Name, part: 1, parts: 1}
			if !startable(t.Name, &mine[0]) {
				out = append(out, base)
				continue
			}
			out = append(out, splitCell(base, mine, width)...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].cost > out[j].cost })
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

// watchedSeconds are the windows a case's steps watch for (expectNoHotLoop's
// over:, 20 s by default).
func watchedSeconds(c plan.Case) float64 {
	var d time.Duration
	for _, st := range c.Case.Steps {
		if st.ExpectNoHotLoop != nil {
			d += max(time.Duration(st.ExpectNoHotLoop.Over), 20*time.Second)
		}
	}
	return d.Seconds()
}

// splitCell gives one cell's cases to as many parts as its cost needs.
func splitCell(base shard, cases []plan.Case, width int) []shard {
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
		base.cost = total
		return []shard{base}
	}
	parts := make([]shard, n)
	for i := range parts {
		parts[i] = base
		parts[i].part, parts[i].parts, parts[i].cost = i+1, n, costStart
	}
	var rest []plan.Case
	for _, c := range cases {
		if c.Case.Requires.Kubelet() {
			parts[0].ids = append(parts[0].ids, c.ID)
			parts[0].cost += caseCost(c)
			continue
		}
		rest = append(rest, c)
	}
	if len(parts[0].ids) > 0 {
		parts[0].cost += costNode
	}
	sort.SliceStable(rest, func(i, j int) bool { return caseCost(rest[i]) > caseCost(rest[j]) })
	for _, c := range rest {
		least := 0
		for j := range parts {
			if parts[j].cost < parts[least].cost {
				least = j
			}
		}
		parts[least].ids = append(parts[least].ids, c.ID)
		parts[least].cost += caseCost(c)
	}
	parts = slices.DeleteFunc(parts, func(sh shard) bool { return len(sh.ids) == 0 })
	for i := range parts {
		parts[i].part, parts[i].parts = i+1, len(parts)
	}
	return parts
}

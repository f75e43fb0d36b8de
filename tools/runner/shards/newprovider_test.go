package shards

import (
	"bytes"
	"context"
	"errors"
	"github.com/draconform/draconform/steps"
	"slices"
	"strings"
	"testing"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/cluster/providers/providertest"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner"
)

// TestANewProviderIsOneLine adds a provider the way a newcomer would: its
// own folder (providertest) and one line in the registry, here appended to
// providers.Default. Everything else (its name on the command line, its
// build, the planner's reading of what it can do, its start) must follow
// from that line and the provider's Info, by the paths the real providers
// take: a second place a new provider had to be written into fails here.
func TestANewProviderIsOneLine(t *testing.T) {
	if providers.Known(providertest.Name) {
		t.Fatalf("the default registry knows %s without its line: this test proves nothing", providertest.Name)
	}
	reg := append(providers.Default(), providers.Simple(providertest.Name, providertest.Usage, providertest.New))

	// Listed, and taken by --provider.
	if !slices.Contains(reg.Names(), providertest.Name) || !reg.Known(providertest.Name) {
		t.Errorf("the registry with its line does not list %s: %v", providertest.Name, reg.Names())
	}
	if !strings.Contains(reg.Usage(), providertest.Name+" ("+providertest.Usage+")") {
		t.Errorf("--provider's help does not name it: %s", reg.Usage())
	}
	if reg.Embedded([]providers.Config{{Name: providertest.Name}}) {
		t.Error("a provider whose line says nothing of a node runtime is taken for an embedded one")
	}

	// Built and constructed.
	ctx := context.Background()
	p, err := reg.New(ctx, providers.Config{Name: providertest.Name, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer providers.Closer(p, nil)()
	targets := []runner.Target{{Name: providertest.Name, Provider: p}}

	// Planned, from its Info alone.
	plannedByInfo(ctx, t, targets)

	// Started, as the runner starts a cell, and refused a node as Info says.
	c, err := cluster.StartCell(ctx, p, "defaults", nil, nil)
	if err != nil {
		t.Fatalf("starting a cell: %v", err)
	}
	if err := p.AddNode(ctx, c); p.Info().AddsNodes || !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("AddNode: %v, with Info.AddsNodes %v", err, p.Info().AddsNodes)
	}
	if _, err := cluster.StartCell(ctx, p, "skew", nil, []cluster.Component{cluster.Scheduler}); !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("a mixed cell: %v, want ErrUnsupported", err)
	}
	if err := p.Stop(ctx, c); err != nil {
		t.Error(err)
	}
}

// plannedByInfo plans the shipped suites on targets, whose one provider
// starts a process per cell and cannot start a cell that sets gates.
func plannedByInfo(ctx context.Context, t *testing.T, targets []runner.Target) {
	t.Helper()
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	opts := runner.Options{Plan: plan.Expand(b, plan.Filter{}), Targets: targets}
	if !Separable(targets) || Processes(3, targets) != 3 {
		t.Errorf("a provider whose Info says SeparateCells is not given processes of its own")
	}
	var errs bytes.Buffer
	if built, code := ensureNodeBinaries(ctx, opts, &errs); built || code != 0 {
		t.Errorf("node binaries built for a provider that builds none: %v %d %s", built, code, errs.String())
	}
	startable := CellSupport(ctx, opts)
	all := func(plan.Case) bool { return true }
	shards := Plan(opts.Plan, targets, []string{providertest.Name}, startable, all, 4)
	gated, open := 0, 0
	for _, cell := range plan.Cells(opts.Plan) {
		var mine []Shard
		for _, sh := range shards {
			if sh.Cell == cell.Name && sh.Target == providertest.Name && sh.Provider == providertest.Name {
				mine = append(mine, sh)
			}
		}
		if len(mine) == 0 {
			t.Errorf("cell %s is not planned on %s", cell.Name, providertest.Name)
			continue
		}
		sets := false
		for _, g := range cluster.CellGates(cell) {
			sets = sets || len(g) > 0
		}
		switch {
		case sets && (len(mine) != 1 || len(mine[0].IDs) > 0):
			t.Errorf("cell %s, which the provider says it cannot start, is planned as %d shards, not one cheap one", cell.Name, len(mine))
		case sets:
			gated++
		default:
			open++
		}
	}
	if gated == 0 || open == 0 {
		t.Errorf("the suites gave %d cells that set gates and %d that do not: the plan's reading of Info is untested", gated, open)
	}
}

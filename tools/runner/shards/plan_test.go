package shards

import (
	"slices"
	"testing"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner"
)

func TestShardsCoverEveryCaseOnceCostliestFirst(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	cases := plan.Expand(b, plan.Filter{})
	targets := []runner.Target{{Name: "local"}, {Name: "local-binaries"}}
	// local-binaries cannot start capacity-on: its cases take one process.
	startable := func(target string, c *plan.Case) bool {
		return target != "local-binaries" || c.Cell.Name != "capacity-on"
	}
	all := func(plan.Case) bool { return true }
	shards := Plan(cases, targets, []string{"local", "local"}, startable, all, 4)
	byCell := map[string][]plan.Case{}
	for _, c := range cases {
		byCell[c.Cell.Name] = append(byCell[c.Cell.Name], c)
	}
	split := false
	for _, target := range []string{"local", "local-binaries"} {
		for cell, want := range byCell {
			var got []string
			whole := 0
			for _, sh := range shards {
				if sh.Target != target || sh.Cell != cell {
					continue
				}
				if sh.Provider != "local" {
					t.Errorf("shard %s runs --provider %s, want local", sh.Name(), sh.Provider)
				}
				if len(sh.IDs) == 0 {
					whole++
					continue
				}
				split = true
				got = append(got, sh.IDs...)
				for _, c := range want {
					if c.Case.Requires.Kubelet() && slices.Contains(sh.IDs, c.ID) && sh.Part != 1 {
						t.Errorf("%s: kubelet case %s in part %d: only part 1 starts a node", sh.Name(), c.ID, sh.Part)
					}
				}
			}
			if whole > 0 {
				if whole > 1 || len(got) > 0 {
					t.Errorf("%s/%s: whole in %d shards and in parts %q", target, cell, whole, got)
				}
				continue
			}
			slices.Sort(got)
			var ids []string
			for _, c := range want {
				ids = append(ids, c.ID)
			}
			slices.Sort(ids)
			if !slices.Equal(got, ids) {
				t.Errorf("%s/%s: parts run %d cases, the cell has %d: %q", target, cell, len(got), len(ids), got)
			}
		}
	}
	if !split {
		t.Error("no cell was split into parts, yet capacity-on has over 70 cases")
	}
	for i, sh := range shards {
		if i > 0 && sh.Cost > shards[i-1].Cost {
			t.Errorf("shard %s (cost %.1f) after a cheaper one (%.1f)", sh.Name(), sh.Cost, shards[i-1].Cost)
		}
		if sh.Target == "local-binaries" && sh.Cell == "capacity-on" && (sh.Parts != 1 || sh.Cost != 0) {
			t.Errorf("%s: a cell the target cannot start is split or costed: %+v", sh.Name(), sh)
		}
	}
}

func TestShardsOnlyForCellsWithSelectedCases(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	cases := plan.Expand(b, plan.Filter{})
	selected, err := runner.Selection("kep6406-skew", "provider:prototype")
	if err != nil {
		t.Fatal(err)
	}
	targets := []runner.Target{{Name: "local"}, {Name: "prototype"}}
	all := func(string, *plan.Case) bool { return true }
	shards := Plan(cases, targets, []string{"local", "prototype"}, all, selected, 4)
	if len(shards) == 0 {
		t.Fatal("no shard for the skew suite's cells on the prototype")
	}
	for _, sh := range shards {
		if sh.Target != "prototype" {
			t.Errorf("shard %s: --label-filter provider:prototype selects no case of %s", sh.Name(), sh.Target)
		}
		skew := func(c plan.Case) bool { return c.Cell.Name == sh.Cell && c.Suite.Name == "kep6406-skew" }
		if !slices.ContainsFunc(cases, skew) {
			t.Errorf("shard %s: no kep6406-skew case runs in cell %s", sh.Name(), sh.Cell)
		}
	}
	if _, err := runner.Selection("(", ""); err == nil {
		t.Error("a --focus that is no regular expression must be refused")
	}
	if _, err := runner.Selection("", "a &&"); err == nil {
		t.Error("a --label-filter that does not parse must be refused")
	}
}

func TestHotLoopCasesCostTheirWindowAndOthersAShare(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	var hot, plain *plan.Case
	for _, c := range plan.Expand(b, plan.Filter{}) {
		switch {
		case c.Alone && !c.Serial && hot == nil:
			hot = &c
		case !c.Alone && plain == nil:
			plain = &c
		}
	}
	if hot == nil || plain == nil {
		t.Fatal("the suites have no hot-loop case, or no plain one")
	}
	if got := caseCost(*hot, 4); got < 20 {
		t.Errorf("%s watches the scheduler for 20 s, costed %.1f s", hot.ID, got)
	}
	if one, four := caseCost(*plain, 1), caseCost(*plain, 4); four >= one {
		t.Errorf("%s costs %.2f s run alone and %.2f s with others: running beside others must cost less", plain.ID, one, four)
	}
}

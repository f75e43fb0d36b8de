package cli

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner"
)

func TestShardsCoverEveryCaseOnceCostliestFirst(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS)
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
	shards := planShards(cases, targets, []string{"local", "local"}, startable, all, defaultCaseParallel)
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
				if sh.target != target || sh.cell != cell {
					continue
				}
				if sh.provider != "local" {
					t.Errorf("shard %s runs --provider %s, want local", sh.name(), sh.provider)
				}
				if len(sh.ids) == 0 {
					whole++
					continue
				}
				split = true
				got = append(got, sh.ids...)
				for _, c := range want {
					if c.Case.Requires.Kubelet() && slices.Contains(sh.ids, c.ID) && sh.part != 1 {
						t.Errorf("%s: kubelet case %s in part %d: only part 1 starts a node", sh.name(), c.ID, sh.part)
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
		if i > 0 && sh.cost > shards[i-1].cost {
			t.Errorf("shard %s (cost %.1f) after a cheaper one (%.1f)", sh.name(), sh.cost, shards[i-1].cost)
		}
		if sh.target == "local-binaries" && sh.cell == "capacity-on" && (sh.parts != 1 || sh.cost != 0) {
			t.Errorf("%s: a cell the target cannot start is split or costed: %+v", sh.name(), sh)
		}
	}
}

func TestShardsOnlyForCellsWithSelectedCases(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS)
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
	shards := planShards(cases, targets, []string{"local", "prototype"}, all, selected, defaultCaseParallel)
	if len(shards) == 0 {
		t.Fatal("no shard for the skew suite's cells on the prototype")
	}
	for _, sh := range shards {
		if sh.target != "prototype" {
			t.Errorf("shard %s: --label-filter provider:prototype selects no case of %s", sh.name(), sh.target)
		}
		skew := func(c plan.Case) bool { return c.Cell.Name == sh.cell && c.Suite.Name == "kep6406-skew" }
		if !slices.ContainsFunc(cases, skew) {
			t.Errorf("shard %s: no kep6406-skew case runs in cell %s", sh.name(), sh.cell)
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
	b, err := loader.Load(suites.FS, fixtures.FS)
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

func TestShardArgsKeepTheRunsSelectionAndNarrowToOneCell(t *testing.T) {
	r := runRequest{focus: "kep6406", labels: "!restart", caseTimeout: 3 * time.Minute, profile: "p.yaml", verbose: true}
	r.specs.suites = "my-suites"
	r.filter.suites = "kep6406-api"
	r.prov.local.Version = "v1.37.2"
	r.prov.local.BinDir = "/bins"
	r.prov.local.BinEncoding = "json"
	args := r.shardArgs(shard{provider: "local", target: "local-binaries", cell: "capacity-on", part: 2, parts: 3, ids: []string{"a/b@capacity-on", "a/c@capacity-on"}}, "/out", "/out/shards/x.json", "run1")
	line := strings.Join(args, " ")
	for _, want := range []string{"run --provider local --cells capacity-on --out /out --shard-out /out/shards/x.json --run-id run1 --parallel 1",
		"--case-timeout 3m0s", "--suites my-suites", "--suite kep6406-api", "--focus kep6406", "--label-filter !restart",
		"--driver-profile p.yaml", "--bin-dir /bins", "--bin-encoding json", "--verbose", "--case-parallel 1", "--case-ids a/b@capacity-on,a/c@capacity-on --part 2of3"} {
		if !strings.Contains(line, want) {
			t.Errorf("shard args lack %q: %s", want, line)
		}
	}
	if slices.Contains(args, "--golden") {
		t.Errorf("a shard must not check the golden table, the parent does: %s", line)
	}
}

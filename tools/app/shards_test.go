package app

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/loader"
	"github.com/draconform/draconform/tools/plan"
	"github.com/draconform/draconform/tools/runner"
)

func TestShardsCoverEveryCellOfEveryTargetLongestFirst(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS)
	if err != nil {
		t.Fatal(err)
	}
	cases := plan.Expand(b, plan.Filter{})
	targets := []runner.Target{{Name: "local"}, {Name: "local-binaries"}}
	shards := planShards(cases, targets, []string{"local", "local"})
	cells := plan.Cells(cases)
	if len(shards) != 2*len(cells) {
		t.Fatalf("%d shards for %d cells on 2 targets", len(shards), len(cells))
	}
	seen := map[string]bool{}
	for i, sh := range shards {
		if seen[sh.key()] {
			t.Errorf("shard %s twice", sh.key())
		}
		seen[sh.key()] = true
		if i > 0 && sh.weight > shards[i-1].weight {
			t.Errorf("shard %s (weight %d) after a lighter one (%d)", sh.key(), sh.weight, shards[i-1].weight)
		}
		if sh.target == "local-binaries" && sh.provider != "local" {
			t.Errorf("target %s runs --provider %s, want local", sh.target, sh.provider)
		}
	}
}

func TestShardArgsKeepTheRunsSelectionAndNarrowToOneCell(t *testing.T) {
	r := runRequest{focus: "kep6406", labels: "!restart", caseTimeout: 3 * time.Minute, profile: "p.yaml", verbose: true}
	r.specs.suites = "my-suites"
	r.filter.suites = "kep6406-api"
	r.prov.local.Version = "v1.37.2"
	r.prov.local.BinDir = "/bins"
	r.prov.local.BinEncoding = "json"
	args := r.shardArgs(shard{provider: "local", target: "local-binaries", cell: "capacity-on"}, "/out", "/out/shards/x.json", "run1")
	line := strings.Join(args, " ")
	for _, want := range []string{"run --provider local --cells capacity-on --out /out --shard-out /out/shards/x.json --run-id run1 --parallel 1",
		"--case-timeout 3m0s", "--suites my-suites", "--suite kep6406-api", "--focus kep6406", "--label-filter !restart",
		"--driver-profile p.yaml", "--bin-dir /bins", "--bin-encoding json", "--verbose"} {
		if !strings.Contains(line, want) {
			t.Errorf("shard args lack %q: %s", want, line)
		}
	}
	if slices.Contains(args, "--golden") {
		t.Errorf("a shard must not check the golden table, the parent does: %s", line)
	}
}

package cli

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/runner/shards"
)

func TestShardArgsKeepTheRunsSelectionAndNarrowToOneCell(t *testing.T) {
	r := runRequest{focus: "kep6406", labels: "!restart", caseTimeout: 3 * time.Minute, profile: "p.yaml", verbose: true}
	r.specs.suites = "my-suites"
	r.filter.suites = "kep6406-api"
	r.prov.local.Version = "v1.37.2"
	r.prov.local.BinDir = "/bins"
	r.prov.local.BinEncoding = "json"
	args := r.shardArgs(shards.Shard{Provider: "local", Target: "local-binaries", Cell: "capacity-on", Part: 2, Parts: 3, IDs: []string{"a/b@capacity-on", "a/c@capacity-on"}}, "/out", "/out/shards/x.json", "run1", false)
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

package shards

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// A shard process gets its share of the plan and the run's selection from
// its request alone; the golden table and the completeness of the run stay
// with the parent, which merges the shards.
func TestARequestRunsItsShareOfThePlanAndNoMore(t *testing.T) {
	c := Config{
		Options: runner.Options{OutDir: "/out", RunID: "r1", Focus: "rejected", LabelFilter: "!restart", CaseTimeout: 3 * time.Minute,
			CaseParallel: 2, Golden: "golden.json", Complete: true, Version: "v", Command: []string{"draconform", "run"},
			FailFast: true, Rerun: report.RerunFlags{"local-bin": "--provider local --bin-dir /bins"}, KeepOnFailure: true},
		Common: Common{Suites: []string{"kep6406-api"}, Local: providers.LocalOptions{Version: "v1.37.2", BinDir: "/bins"}, Verbose: true},
	}
	ids := []string{"kep6406-api/empty-requests-rejected@capacity-on", "kep6406-api/quantity-must-not-be-negative@capacity-on"}
	sh := Shard{Provider: "local", Target: "local-binaries", Cell: "capacity-on", Part: 2, Parts: 3, IDs: ids}
	path := filepath.Join(t.TempDir(), "request.json")
	if err := writeRequest(path, c.request(sh, "/out/shards/x.json", true)); err != nil {
		t.Fatal(err)
	}
	q, err := readRequest(path)
	if err != nil {
		t.Fatal(err)
	}
	if q.Provider != "local" || q.Target != "local-binaries" || !q.NodeBuilt || q.ShardOut != "/out/shards/x.json" || q.Local.BinDir != "/bins" || !q.Verbose {
		t.Errorf("the request lost the shard's provider, target, node, report or binaries: %+v", q)
	}
	opts, err := q.options()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pc := range opts.Plan {
		got = append(got, pc.ID)
	}
	slices.Sort(got)
	if !slices.Equal(got, ids) {
		t.Errorf("the shard plans %v, want its part's cases %v", got, ids)
	}
	if opts.Golden != "" || opts.Complete {
		t.Errorf("a shard checks the golden table (%q) or calls itself complete (%v): the parent does", opts.Golden, opts.Complete)
	}
	if opts.Focus != "rejected" || opts.LabelFilter != "!restart" || opts.CaseTimeout != 3*time.Minute || opts.CaseParallel != 2 ||
		opts.RunID != "r1" || opts.OutDir != "/out" || opts.ShardOut != "/out/shards/x.json" || opts.Version != "v" ||
		!opts.FailFast || !opts.Verbose || !opts.KeepOnFailure || opts.Rerun["local-bin"] != "--provider local --bin-dir /bins" {
		t.Errorf("the shard's options lost the run's: %+v", opts)
	}

	whole := sh
	whole.IDs, whole.Part, whole.Parts = nil, 1, 1
	q = c.request(whole, "/out/shards/y.json", false)
	if opts, err = q.options(); err != nil {
		t.Fatal(err)
	}
	for _, pc := range opts.Plan {
		if pc.Cell.Name != "capacity-on" || pc.Suite.Name != "kep6406-api" {
			t.Errorf("a whole cell's shard plans %s, outside its cell or the run's suites", pc.ID)
		}
	}
	if len(opts.Plan) <= len(ids) {
		t.Errorf("a whole cell's shard plans %d cases, not the cell's", len(opts.Plan))
	}
}

func TestOnlyAShardProcessServesARequest(t *testing.T) {
	t.Setenv(RequestEnv, "")
	if _, served := ServeChild(context.Background(), io.Discard, io.Discard); served {
		t.Error("a process started without a request served one")
	}
	t.Setenv(RequestEnv, filepath.Join(t.TempDir(), "missing.json"))
	if code, served := ServeChild(context.Background(), io.Discard, io.Discard); !served || code != 2 {
		t.Errorf("a shard whose request is missing: served %v, exit %d; want served, exit 2", served, code)
	}
}

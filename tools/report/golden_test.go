package report

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestGoldenCompare(t *testing.T) {
	g := Golden{
		"local a/x@on":     "passed",
		"local a/y@on":     "skipped",
		"prototype a/x@on": "passed",
	}
	run := []Outcome{
		{ID: "a/x@on", Target: "local", State: "passed"},
		{ID: "a/y@on", Target: "local", State: "passed"},
		{ID: "a/x@on", Target: "prototype", State: "failed"},
		{ID: "a/z@on", Target: "prototype", State: "passed"},
		{ID: "a/x@on", Target: "kubeconfig", State: "failed"},
	}
	want := []string{
		"[local] a/y@on: passed, golden outcome skipped",
		"[prototype] a/x@on: failed, golden outcome passed",
		"[prototype] a/z@on: passed, and the golden table has no outcome for it",
	}
	if got := g.Compare(run); !reflect.DeepEqual(got, want) {
		t.Errorf("Compare:\n got %q\nwant %q", got, want)
	}
	path := filepath.Join(t.TempDir(), "g.json")
	if err := GoldenOf(run[:2]).Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadGolden(path)
	if err != nil || back["local a/y@on"] != "passed" || len(back) != 2 {
		t.Errorf("round trip: %v %v", back, err)
	}
	if d := back.Compare(run[:2]); len(d) != 0 {
		t.Errorf("a run must match its own golden table: %v", d)
	}
}

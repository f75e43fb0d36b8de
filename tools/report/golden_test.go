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

// A complete run must produce every golden outcome of the implementations
// it ran; a focused one need not, and neither blames an implementation the
// run did not touch.
func TestGoldenDeviationsOfACompleteRun(t *testing.T) {
	g := Golden{
		"local a/x@on":     "passed",
		"local a/y@on":     "skipped",
		"prototype a/x@on": "passed",
	}
	run := []Outcome{{ID: "a/x@on", Target: "local", State: "passed"}}
	if d := g.Deviations(run, false); len(d) != 0 {
		t.Errorf("a focused run deviates: %v", d)
	}
	d := g.Deviations(run, true)
	want := []Deviation{{Target: "local", ID: "a/y@on", Want: "skipped"}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("complete run:\n got %+v\nwant %+v", d, want)
	}
	if s := d[0].String(); s != "[local] a/y@on: missing from the run, golden outcome skipped" {
		t.Errorf("String: %q", s)
	}
}

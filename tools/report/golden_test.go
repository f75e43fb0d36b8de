package report

import (
	"path/filepath"
	"reflect"
	"strings"
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

// A skip for another reason, or a refusal counted as passed, is a
// different outcome from a plain skip or pass.
func TestGoldenValueCarriesCauseAndGap(t *testing.T) {
	g := GoldenOf([]Outcome{
		{ID: "a/x@on", Target: "local", State: "skipped", Cause: "needs extendedResourceCapacityRequests kept, found unknown"},
		{ID: "a/r@off", Target: "local", State: "passed", Cause: CauseStartRefused},
		{ID: "a/g@on", Target: "local", State: "passed", Gap: "present"},
	})
	run := []Outcome{
		{ID: "a/x@on", Target: "local", State: "skipped", Cause: "needs nodes with the test driver"},
		{ID: "a/r@off", Target: "local", State: "passed"},
		{ID: "a/g@on", Target: "local", State: "passed", Gap: "closed"},
	}
	res, err := g.Check(run, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"[local] a/g@on: passed (gap closed), golden outcome passed (gap present)",
		"[local] a/r@off: passed, golden outcome passed: " + CauseStartRefused,
		"[local] a/x@on: skipped: needs nodes with the test driver, golden outcome skipped: needs extendedResourceCapacityRequests kept, found unknown",
	}
	if !reflect.DeepEqual(res.Diffs, want) {
		t.Errorf("diffs:\n got %q\nwant %q", res.Diffs, want)
	}
}

// Nothing compared is said, never reported as a match; --golden-as maps a
// target onto a known implementation.
func TestGoldenCheckSaysWhatItCompared(t *testing.T) {
	g := Golden{"prototype a/x@on": "passed", "prototype a/y@on": "passed"}
	static := []Outcome{{ID: "a/x@on", Target: "prototype-static", State: "passed"}}
	res, err := g.Check(static, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Compared) != 0 || !reflect.DeepEqual(res.NotCompared, []string{"prototype-static"}) || len(res.Diffs) != 0 {
		t.Errorf("unknown target: %+v", res)
	}
	res, err = g.Check(static, true, map[string]string{"prototype-static": "prototype"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Compared, []string{"prototype"}) || !reflect.DeepEqual(res.Diffs, []string{"[prototype] a/y@on: missing from the run, golden outcome passed"}) {
		t.Errorf("mapped: %+v", res)
	}
	if _, err := g.Check(static, true, map[string]string{"prototype-static": "local"}); err == nil || !strings.Contains(err.Error(), "no outcomes of local") {
		t.Errorf("mapping onto an unknown implementation: %v", err)
	}
}

// A probe the API server rejected is behaviour the suite caught, not a
// cluster that did not start.
func TestProbeRejectionIsNoStartFailure(t *testing.T) {
	if (Outcome{State: "failed", Cause: CauseProbe}).StartFailure() {
		t.Error("a rejected probe counted as a start failure")
	}
	if !(Outcome{State: "failed", Cause: CauseCellStart}).StartFailure() {
		t.Error("a cell that did not start is a start failure")
	}
}

// An update honours --golden-as, so the same provider run with other
// binaries is recorded, and then compared, as its own implementation.
func TestGoldenMergeAs(t *testing.T) {
	g := Golden{"kind a/x@on": "skipped: the provider cannot run this cell", "kind a/y@off": "passed"}
	run := []Outcome{{ID: "a/x@on", Target: "kind", State: "passed"}}
	g.Merge(run, map[string]string{"kind": "kind-kep"})
	want := Golden{"kind a/x@on": "skipped: the provider cannot run this cell", "kind a/y@off": "passed", "kind-kep a/x@on": "passed"}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("Merge:\n got %v\nwant %v", g, want)
	}
	res, err := g.Check(run, false, map[string]string{"kind": "kind-kep"})
	if err != nil || len(res.Diffs) != 0 || !reflect.DeepEqual(res.Compared, []string{"kind-kep"}) {
		t.Errorf("Check after Merge: %+v %v", res, err)
	}
	g.Merge([]Outcome{{ID: "a/y@off", Target: "kind", State: "failed"}}, nil)
	if g["kind a/y@off"] != "failed" {
		t.Errorf("Merge without a mapping must record under the target: %v", g)
	}
}

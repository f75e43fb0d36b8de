package usecase

import (
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/report"
)

func TestSelectMutants(t *testing.T) {
	all := mutants.All()
	got, err := selectMutants(all, []string{"sidecars-without-capacity", "prototype-protobuf-scheduler"})
	if err != nil || len(got) != 2 || got[0].Provider != "prototype-sidecars-without-capacity" || got[1].Provider != mutants.ProtobufScheduler {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := selectMutants(all, []string{"no-such-mutant"}); err == nil || !strings.Contains(err.Error(), "--list") {
		t.Errorf("unknown mutant: %v", err)
	}
	if got, _ := selectMutants(all, nil); len(got) != len(all) {
		t.Errorf("no selection gives %d mutants, want all %d", len(got), len(all))
	}
}

func TestFlakeCheckTellsFlakesFromStableRuns(t *testing.T) {
	want := report.Golden{"prototype a/x@on": "passed", "prototype a/y@on": "skipped", "local a/x@on": "skipped"}
	fc := flakeCheck{want: want, complete: true, deviations: map[string][]string{}}
	stable := []report.Outcome{
		{Target: "prototype", ID: "a/x@on", State: "passed"},
		{Target: "prototype", ID: "a/y@on", State: "skipped"},
		{Target: "local", ID: "a/x@on", State: "skipped"},
	}
	if d, err := fc.add(1, stable); len(d) != 0 || err != nil {
		t.Fatalf("a run equal to the golden table deviates: %v, %v", d, err)
	}
	flaky := []report.Outcome{
		{Target: "prototype", ID: "a/x@on", State: "failed"},
		{Target: "local", ID: "a/x@on", State: "skipped"},
		{Target: "local", ID: "a/new@on", State: "passed"},
	}
	d, _ := fc.add(2, flaky)
	wantDiffs := []string{
		"[local] a/new@on: passed, and the golden table has no outcome for it",
		"[prototype] a/x@on: failed, golden outcome passed",
		"[prototype] a/y@on: missing from the run, golden outcome skipped",
	}
	if strings.Join(d, "\n") != strings.Join(wantDiffs, "\n") {
		t.Errorf("diffs:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(wantDiffs, "\n"))
	}
	// A run of one implementation only does not make the other's outcomes missing.
	if d, err := fc.add(3, stable[2:]); len(d) != 0 || err != nil {
		t.Errorf("a local-only run deviates: %v, %v", d, err)
	}
	// A run of implementations the table does not know compares nothing,
	// and would pass whatever happened: refused, and not counted.
	if _, err := fc.add(4, []report.Outcome{{Target: "kubeconfig", ID: "a/x@on", State: "failed"}}); err == nil || !strings.Contains(err.Error(), "local, prototype") {
		t.Errorf("a run of unknown implementations: %v", err)
	}
	md := fc.summary(time.Minute)
	for _, s := range []string{
		"3 full runs in 1m0s, 7 outcomes compared with the golden table: 3 deviated.",
		"| `prototype a/x@on` | passed | 1 of 3: run 2: failed |",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("summary lacks %q:\n%s", s, md)
		}
	}
	clean := flakeCheck{want: want, complete: true, deviations: map[string][]string{}}
	if _, err := clean.add(1, stable); err != nil {
		t.Fatal(err)
	}
	if md := clean.summary(time.Second); !strings.Contains(md, "none deviated, no flake") {
		t.Errorf("clean summary: %s", md)
	}
}

// A focused flake check (--partial) still compares what its runs produce,
// but the golden outcomes they leave out are not deviations.
func TestFocusedFlakeCheckComparesWhatRan(t *testing.T) {
	want := report.Golden{"local a/x@on": "passed", "local a/y@on": "skipped"}
	fc := flakeCheck{want: want, complete: false, deviations: map[string][]string{}}
	diffs, err := fc.add(1, []report.Outcome{{Target: "local", ID: "a/x@on", State: "failed"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != 1 || !strings.Contains(diffs[0], "a/x@on") {
		t.Errorf("diffs %v: want the failed a/x only", diffs)
	}
	if !strings.Contains(fc.summary(time.Minute), "1 focused runs") {
		t.Errorf("summary does not say the runs were focused:\n%s", fc.summary(time.Minute))
	}
}

func TestParseGoldenAs(t *testing.T) {
	got, err := ParseGoldenAs("prototype-static=prototype, a=b")
	if err != nil || got["prototype-static"] != "prototype" || got["a"] != "b" || len(got) != 2 {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"prototype-static", "=prototype", "x="} {
		if _, err := ParseGoldenAs(bad); err == nil || !strings.Contains(err.Error(), "target=implementation") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

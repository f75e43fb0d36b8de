package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// With --fail-fast, a case that fails and blocks stops the run: the next
// case does not begin, and ends as not run naming the failure. An
// informing failure does not stop it, and without the flag nothing does.
// The cases here fail because their cell never started, as a case on a
// cluster that failed to start does.
func TestFailFastStopsAfterTheFirstBlockingFailure(t *testing.T) {
	mk := func(id, informs string) plan.Case {
		return plan.Case{ID: "s/" + id + "@c", Target: "t", Suite: &spec.Suite{Name: "s"}, Cell: &spec.Cell{Name: "c"}, Case: &spec.Case{ID: id}, Informs: informs}
	}
	for _, tc := range []struct {
		name     string
		failFast bool
		first    plan.Case
		stops    bool
	}{
		{"blocking failure", true, mk("a", ""), true},
		{"informing failure", true, mk("a", "an open reading"), false},
		{"no --fail-fast", false, mk("a", ""), false},
	} {
		s := newSession(Options{FailFast: tc.failFast, Profile: &spec.DriverProfile{}})
		if r := execCase(context.Background(), s, tc.first, false); r.failure == "" {
			t.Fatalf("%s: the first case did not fail: %+v", tc.name, r)
		}
		r := execCase(context.Background(), s, mk("b", ""), false)
		notRun := r.skip != "" && r.failure == ""
		if notRun != tc.stops {
			t.Errorf("%s: second case not run = %t, want %t (skip %q, failure %q)", tc.name, notRun, tc.stops, r.skip, r.failure)
		}
		if tc.stops {
			if !strings.Contains(r.skip, "[t] s/a@c") {
				t.Errorf("%s: the not-run case does not name the failure: %q", tc.name, r.skip)
			}
			found := false
			for _, e := range r.entries {
				found = found || (e.name == report.EntryCause && e.value == report.CauseNotRun)
			}
			if !found {
				t.Errorf("%s: the not-run case has no cause %q", tc.name, report.CauseNotRun)
			}
		}
	}
}

// --rerun-failed's focus selects exactly the failed cases' ids, whatever
// their characters, and not a case whose id only ends or begins the same.
func TestFailedFocusSelectsExactlyTheFailedCases(t *testing.T) {
	focus, targets := FailedFocus([]report.Outcome{
		{ID: "s/a.b@c", Target: "prototype"}, {ID: "s/a.b@c", Target: "local"}, {ID: "t/x@d", Target: "prototype"},
	})
	sel, err := newSelection(focus, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(targets, ",") != "prototype,local" {
		t.Errorf("targets %v", targets)
	}
	for id, want := range map[string]bool{"s/a.b@c": true, "t/x@d": true, "s/aXb@c": false, "s/a.b@cc": false, "us/a.b@c": false, "t/x@d2": false} {
		suite, rest, _ := strings.Cut(id, "/")
		caseID, cell, _ := strings.Cut(rest, "@")
		c := plan.Case{ID: id, Target: "prototype", Suite: &spec.Suite{Name: suite, Description: "d"}, Case: &spec.Case{ID: caseID}, Cell: &spec.Cell{Name: cell}}
		if got := sel.matches(c); got != want {
			t.Errorf("%s: selected %t, want %t (focus %s)", id, got, want, focus)
		}
	}
}

package mutants

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/report"
)

// A case catches a mutant only where it passed on the prototype in the
// same mutation run; a cluster that did not start is an error, not a kill.
func TestJudge(t *testing.T) {
	m := Mutant{Provider: "prototype-x", Mistake: "x"}
	ref := map[string]report.Outcome{
		"s/a@on": {ID: "s/a@on", State: "passed"},
		"s/b@on": {ID: "s/b@on", State: "failed"},
		"s/c@on": {ID: "s/c@on", State: "passed"},
	}
	r, err := Judge(m, []report.Outcome{
		{ID: "s/a@on", State: "failed"},
		{ID: "s/b@on", State: "failed"},
		{ID: "s/c@on", State: "passed"},
		{ID: "s/d@on", State: "failed"}, // not in the reference
	}, ref)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Caught, ",") != "s/a@on" || strings.Join(r.FailedOnReference, ",") != "s/b@on,s/d@on" {
		t.Errorf("caught %v, failed on the reference %v", r.Caught, r.FailedOnReference)
	}
	_, err = Judge(m, []report.Outcome{
		{ID: "s/a@on", State: "failed", Cause: report.CauseCellStart},
		{ID: "s/c@on", State: "failed"},
	}, ref)
	if err == nil || !strings.Contains(err.Error(), "did not start") || !strings.Contains(err.Error(), "s/a@on") {
		t.Errorf("a start failure must be an error of the mutation run: %v", err)
	}
}

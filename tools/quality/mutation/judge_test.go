package mutation

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/report"
)

// A case catches a mutant only where it passed on the prototype in the
// same mutation run; a cluster that did not start is an error, not a kill.
func TestJudge(t *testing.T) {
	m := mutants.Mutant{Provider: "prototype-x", Mistake: "x"}
	ref := Run{Outcomes: []report.Outcome{
		{ID: "s/a@on", State: "passed"},
		{ID: "s/b@on", State: "failed"},
		{ID: "s/c@on", State: "passed"},
	}}
	r, err := Judge(m, "sha", nil, Run{Outcomes: []report.Outcome{
		{ID: "s/a@on", State: "failed"},
		{ID: "s/b@on", State: "failed"},
		{ID: "s/c@on", State: "passed"},
		{ID: "s/d@on", State: "failed"}, // not in the reference
	}}, ref)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Caught, ",") != "s/a@on" || strings.Join(r.FailedOnReference, ",") != "s/b@on,s/d@on" || r.SuiteDigest != "sha" {
		t.Errorf("caught %v, failed on the reference %v, digest %q", r.Caught, r.FailedOnReference, r.SuiteDigest)
	}
	_, err = Judge(m, "sha", nil, Run{Outcomes: []report.Outcome{
		{ID: "s/a@on", State: "failed", Cause: report.CauseCellStart},
		{ID: "s/c@on", State: "failed"},
	}}, ref)
	if err == nil || !strings.Contains(err.Error(), "did not start") || !strings.Contains(err.Error(), "s/a@on") {
		t.Errorf("a start failure must be an error of the mutation run: %v", err)
	}
}

// A mutant is killed only when a claim that stands on the prototype is not
// conformant on it: a case that fails on it but only informs lets it
// certify every claim, so it kills nothing.
func TestKilledOnlyByABrokenClaim(t *testing.T) {
	m := mutants.Mutant{Provider: "prototype-x", Mistake: "x"}
	outcomes := []report.Outcome{{ID: "s/open@on", State: "failed", Informing: true}, {ID: "s/a@on", State: "passed"}}
	ref := Run{
		Outcomes: []report.Outcome{{ID: "s/open@on", State: "passed"}, {ID: "s/a@on", State: "passed"}, {ID: "s/z@off", State: "failed"}},
		Verdicts: []report.Verdict{{Claim: "on", State: report.Conformant}, {Claim: "off", State: report.NotConformant}},
	}
	// Only the informing case failed: every claim stands on the mutant.
	r, err := Judge(m, "sha", nil, Run{Outcomes: outcomes, Verdicts: []report.Verdict{{Claim: "on", State: report.Conformant}, {Claim: "off", State: report.NotConformant}}}, ref)
	if err != nil {
		t.Fatal(err)
	}
	if r.Killed() || len(r.Caught) != 1 || strings.Join(r.InformingOnly(), ",") != "s/open@on" {
		t.Errorf("an informing catch killed it: %+v", r)
	}
	// A blocking case broke "on"; "off" was not conformant on the
	// prototype either, so it says nothing of the mutant.
	outcomes[1].State = "failed"
	r, err = Judge(m, "sha", map[string]string{"s/a@on": "da", "s/open@on": "do"}, Run{Outcomes: outcomes, Verdicts: []report.Verdict{
		{Claim: "on", State: report.NotConformant, Blocking: []string{"s/a@on failed (boom)"}},
		{Claim: "off", State: report.NotConformant, Blocking: []string{"s/z@off failed"}},
	}}, ref)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Killed() || len(r.Breaks) != 1 || r.Breaks[0].Claim != "on" || strings.Join(r.Breaks[0].Cases, ",") != "s/a@on" {
		t.Errorf("breaks %+v", r.Breaks)
	}
	// What the breaking case ran is kept, so the break holds on later
	// suites while the case runs the same.
	if d := r.Breaks[0].Digests; len(d) != 1 || d["s/a@on"] != "da" || r.Breaks[0].Contradicted {
		t.Errorf("digests of the break %v, contradicted %t", d, r.Breaks[0].Contradicted)
	}
	if strings.Join(r.InformingOnly(), ",") != "s/open@on" {
		t.Errorf("informing only %v", r.InformingOnly())
	}
}

// A break made by a cell whose probe contradicted its gates lists
// informing cases too, and says so.
func TestBreakOfAContradictedCell(t *testing.T) {
	m := mutants.Mutant{Provider: "prototype-x", Mistake: "x"}
	ref := Run{
		Outcomes: []report.Outcome{{ID: "s/open@on", State: "passed"}},
		Verdicts: []report.Verdict{{Claim: "on", State: report.Conformant}},
	}
	r, err := Judge(m, "sha", nil, Run{
		Outcomes: []report.Outcome{{ID: "s/open@on", State: "failed", Informing: true}},
		Verdicts: []report.Verdict{{Claim: "on", State: report.NotConformant, Blocking: []string{"s/open@on failed (" + report.CauseContradicted + ")"}}},
	}, ref)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Killed() || !r.Breaks[0].Contradicted {
		t.Errorf("breaks %+v", r.Breaks)
	}
}

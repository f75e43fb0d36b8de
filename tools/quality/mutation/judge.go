package mutation

import (
	"fmt"
	"sort"
	"strings"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/report"
)

// Run is what one run of the suite left: its outcomes and its verdicts.
type Run struct {
	Outcomes []report.Outcome
	Verdicts []report.Verdict
}

// Judge applies the kill rule: a case catches a mutant when it failed on
// the mutant for what it checked, and passed on the prototype in the
// reference run; the mutant is killed when a claim that stands on the
// reference is not conformant on it. A cluster or node that did not start
// is no catch but an error of the mutation run, since nothing was checked.
func Judge(m mutants.Mutant, digest string, caseDigests map[string]string, got Run, reference Run) (mutants.Result, error) {
	r := mutants.Result{Provider: m.Provider, Mistake: m.Mistake, Equivalent: m.Equivalent, Legal: m.Legal, SuiteDigest: digest, Caught: []string{}, Breaks: []mutants.Break{}}
	if m.Legal != "" {
		r.Held = map[string]string{}
		for _, o := range got.Outcomes {
			if d, ok := caseDigests[o.ID]; ok && o.State != report.Failed {
				r.Held[o.ID] = d
			}
		}
	}
	ref := map[string]report.Outcome{}
	for _, o := range reference.Outcomes {
		ref[o.ID] = o
	}
	var unstarted []string
	for _, o := range got.Outcomes {
		if o.State != report.Failed {
			continue
		}
		if o.StartFailure() {
			unstarted = append(unstarted, o.ID)
			continue
		}
		if ref, ok := ref[o.ID]; !ok || ref.State != report.Passed {
			r.FailedOnReference = append(r.FailedOnReference, o.ID)
			continue
		}
		r.Caught = append(r.Caught, o.ID)
	}
	if len(unstarted) > 0 {
		return r, fmt.Errorf("%d cases failed because a cluster or node did not start (first %s), which says nothing of what the suite catches; fix the start and rerun it with --mutants", len(unstarted), unstarted[0])
	}
	stands := map[string]bool{}
	for _, v := range reference.Verdicts {
		stands[v.Claim] = v.State == report.Conformant
	}
	for _, v := range got.Verdicts {
		if v.State != report.NotConformant || !stands[v.Claim] {
			continue
		}
		b := mutants.Break{Claim: v.Claim, Cases: []string{}, Digests: map[string]string{}}
		for _, why := range v.Blocking {
			id, _, _ := strings.Cut(why, " ")
			b.Cases = append(b.Cases, id)
			b.Contradicted = b.Contradicted || strings.HasSuffix(why, "("+report.CauseContradicted+")")
			if d, ok := caseDigests[id]; ok {
				b.Digests[id] = d
			}
		}
		sort.Strings(b.Cases)
		r.Breaks = append(r.Breaks, b)
	}
	return r, nil
}

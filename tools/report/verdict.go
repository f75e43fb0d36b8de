package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Claim is a certification claim resolved against a plan: the cases it
// rests on, by id.
type Claim struct {
	Name  string
	Title string
	// Field lists the states of extendedResourceCapacityRequests a cell
	// must have been found in for its cases to count; nil: any.
	Field []string
	Cases []ClaimCase
}

// ClaimCase is one case a claim rests on.
type ClaimCase struct {
	ID   string
	Cell string
	// Informing cases (contested, known-issue) are reported, never
	// blocking.
	Informing bool
}

// VerdictState is what a run shows of a claim.
type VerdictState string

// The verdicts.
const (
	Conformant    VerdictState = "conformant"
	NotConformant VerdictState = "not conformant"
	NotApplicable VerdictState = "not applicable"
)

// Verdict is one claim on one implementation.
type Verdict struct {
	Claim  string       `json:"claim"`
	Title  string       `json:"title"`
	Target string       `json:"target"`
	State  VerdictState `json:"verdict"`
	Reason string       `json:"reason"`
	// Passed counts the blocking cases that passed, of Required.
	Passed   int `json:"passed"`
	Required int `json:"required"`
	// Blocking are the ids of the cases that failed or skipped; Informing
	// the informing cases that did not pass.
	Blocking  []string `json:"blocking,omitempty"`
	Informing []string `json:"informing,omitempty"`
}

// FieldStates are what the probe found of each target's cells, by
// "target/cell": the state of extendedResourceCapacityRequests ("" where
// the cell did not start).
type FieldStates map[string]string

// Verdicts judges every claim on every target the outcomes cover. A claim
// stands on a target when each of its cases that applies there passed
// (informing ones aside); it does not when one failed or was skipped for a
// lack the cluster could remedy (no kubelet nodes with the driver, a group
// version not served); it is not applicable when none of its cases applies
// (its cells cannot run there, the field is in another state). A narrowed
// run (complete false) supports no claim.
func Verdicts(claims []Claim, outcomes []Outcome, facts FieldStates, complete bool) []Verdict {
	byTarget := map[string]map[string]Outcome{}
	for _, o := range outcomes {
		if byTarget[o.Target] == nil {
			byTarget[o.Target] = map[string]Outcome{}
		}
		byTarget[o.Target][o.ID] = o
	}
	targets := make([]string, 0, len(byTarget))
	for t := range byTarget {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	var out []Verdict
	for _, t := range targets {
		for _, c := range claims {
			out = append(out, judge(c, t, byTarget[t], facts, complete))
		}
	}
	return out
}

func judge(c Claim, target string, got map[string]Outcome, facts FieldStates, complete bool) Verdict {
	v := Verdict{Claim: c.Name, Title: c.Title, Target: target}
	if !complete {
		v.State, v.Reason = NotApplicable, "a narrowed run (--focus, --label-filter, --suite or --cells) supports no claim"
		return v
	}
	var outside []string // why cases did not apply
	for _, cc := range c.Cases {
		o, ran := got[cc.ID]
		switch {
		case !ran:
			outside = append(outside, "not run")
			continue
		case o.State == Skipped && o.Inapplicable:
			outside = append(outside, o.Cause)
			continue
		case len(c.Field) > 0 && !slices.Contains(c.Field, facts[target+"/"+cc.Cell]):
			outside = append(outside, fieldReason(facts[target+"/"+cc.Cell], cc.Cell, c.Field))
			continue
		}
		passed := o.State == Passed
		if cc.Informing {
			if !passed {
				v.Informing = append(v.Informing, cc.ID+" "+string(o.State))
			}
			continue
		}
		v.Required++
		if passed {
			v.Passed++
		} else {
			v.Blocking = append(v.Blocking, cc.ID+" "+string(o.State)+explain(o))
		}
	}
	switch {
	case v.Required == 0:
		v.State, v.Reason = NotApplicable, "none of its cases applies here: "+commonest(outside)
	case len(v.Blocking) > 0:
		v.State = NotConformant
		v.Reason = fmt.Sprintf("%d of %d required cases did not pass", len(v.Blocking), v.Required)
	default:
		v.State = Conformant
		v.Reason = fmt.Sprintf("all %d required cases passed", v.Required)
	}
	if len(v.Informing) > 0 {
		v.Reason += fmt.Sprintf("; %d informing cases did not pass (contested or known issues, not blocking)", len(v.Informing))
	}
	return v
}

func fieldReason(found, cell string, want []string) string {
	if found == "" {
		return "cell " + cell + " did not start"
	}
	hint := ""
	if found == "kept" {
		// A cluster behind a kubeconfig declared as defaults that runs the
		// KEP: its cases are in the KEP's cells.
		hint = " (the cluster runs KEP-6406: with --provider kubeconfig, --as-cell capacity-on runs its cases)"
	}
	return fmt.Sprintf("the field is %s in cell %s, the claim needs %s%s", found, cell, strings.Join(want, " or "), hint)
}

func explain(o Outcome) string {
	if o.Cause != "" {
		return " (" + o.Cause + ")"
	}
	return ""
}

// commonest is the reason most cases gave, with how many gave others.
func commonest(reasons []string) string {
	if len(reasons) == 0 {
		return "it has no case in this run"
	}
	count := map[string]int{}
	for _, r := range reasons {
		count[r]++
	}
	best := reasons[0]
	for r, n := range count {
		if n > count[best] || (n == count[best] && r < best) {
			best = r
		}
	}
	if others := len(reasons) - count[best]; others > 0 {
		return fmt.Sprintf("%s (and %d cases for other reasons)", best, others)
	}
	return best
}

// VerdictLines are the verdicts as the matrix shows them, one per line.
func VerdictLines(vs []Verdict) string {
	if len(vs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("verdicts:\n")
	for _, v := range vs {
		fmt.Fprintf(&b, "  %-15s %s on %s: %s\n", strings.ToUpper(string(v.State)), v.Claim, v.Target, v.Reason)
		for _, id := range v.Blocking {
			fmt.Fprintf(&b, "      blocking: %s\n", id)
		}
	}
	return b.String()
}

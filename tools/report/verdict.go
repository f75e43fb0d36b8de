package report

import (
	"fmt"
	"maps"
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
	// MinCases is the least number of blocking cases that must apply for
	// the claim to be judged at all.
	MinCases int
	Cases    []ClaimCase
}

// ClaimCase is one case a claim rests on.
type ClaimCase struct {
	ID   string
	Cell string
	// Informing cases rest on a reading the KEP leaves open: reported,
	// never blocking.
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
	// Blocking are the ids of the cases that failed, skipped or have no
	// outcome; Informing the informing cases that did not pass.
	Blocking  []string `json:"blocking,omitempty"`
	Informing []string `json:"informing,omitempty"`
}

// CellState is what the probe found of one cell of one target.
type CellState struct {
	// Field is the state of extendedResourceCapacityRequests ("" where
	// the cell did not start).
	Field string
	// Contradicted says how the probe contradicts what the cell's gates
	// promise: the cluster is not in the state the cell names.
	Contradicted string
}

// CellStates are the probe's findings by "target/cell".
type CellStates map[string]CellState

// Verdicts judges every claim on every target the outcomes cover. A claim
// stands on a target when each of its blocking cases that applies there
// passed, and at least its MinCases of them applied. It does not stand
// when one failed, was skipped for a lack the cluster could remedy (no
// kubelet nodes with the driver, a group version not served), has no
// outcome in a complete run (the run ended before it, or the process of
// its cell died), or ran in a cell whose probe contradicts the cell's
// gates. It is not applicable when too few of its cases apply (its cells
// cannot run there, the field is in another state). A narrowed run
// (complete false) supports no claim.
func Verdicts(claims []Claim, outcomes []Outcome, cells CellStates, complete bool) []Verdict {
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
			out = append(out, judge(c, t, byTarget[t], cells, complete))
		}
	}
	return out
}

func judge(c Claim, target string, got map[string]Outcome, cells CellStates, complete bool) Verdict {
	v := Verdict{Claim: c.Name, Title: c.Title, Target: target}
	if !complete {
		v.State, v.Reason = NotApplicable, "a narrowed run (--focus, --label-filter, --suite, --cells, --rerun-failed or one --shard alone) supports no claim"
		return v
	}
	v.conclude(c, v.countCases(c, target, got, cells))
	if len(v.Informing) > 0 {
		v.Reason += fmt.Sprintf("; %d informing cases did not pass (open readings of the KEP, not blocking)", len(v.Informing))
	}
	return v
}

// caseTally is what a claim's cases said besides the verdict's counts.
type caseTally struct {
	outside      []string          // why cases did not apply
	contradicted map[string]string // cell: how its probe contradicts its gates
}

// countCases counts c's cases on target into v (required, passed,
// blocking, informing) and returns what else they said.
func (v *Verdict) countCases(c Claim, target string, got map[string]Outcome, cells CellStates) caseTally {
	t := caseTally{contradicted: map[string]string{}}
	block := func(why string) {
		v.Required++
		v.Blocking = append(v.Blocking, why)
	}
	for _, cc := range c.Cases {
		o, ran := got[cc.ID]
		st := cells[target+"/"+cc.Cell]
		switch {
		case !ran && cc.Informing:
			v.Informing = append(v.Informing, cc.ID+" "+NoOutcome)
			continue
		case !ran:
			// A complete run gives every planned case an outcome, a skip
			// included: a missing one never ran.
			block(cc.ID + " " + NoOutcome + ": the run ended before it ran, or the process of its cell failed")
			continue
		case st.Contradicted != "" || o.Cause == CauseContradicted:
			// Not "another state": the cluster broke what its gates
			// promise, which no reading of the KEP allows.
			t.contradicted[cc.Cell] = firstOf(st.Contradicted, o.Message)
			v.Required++
			if o.State == Passed {
				v.Passed++
			} else {
				v.Blocking = append(v.Blocking, cc.ID+" "+string(o.State)+" ("+CauseContradicted+")")
			}
			continue
		case o.State == Skipped && o.Inapplicable:
			t.outside = append(t.outside, o.Cause)
			continue
		case st.Field == "" && len(c.Field) > 0 && o.State == Failed:
			// The cell never got as far as the probe (its cluster did
			// not start, its API server refused the probe's writes): a
			// failure, which no state of the field makes inapplicable.
		case len(c.Field) > 0 && !slices.Contains(c.Field, st.Field):
			t.outside = append(t.outside, fieldReason(st.Field, cc.Cell, c.Field))
			continue
		}
		passed := o.State == Passed
		if cc.Informing {
			if !passed {
				v.Informing = append(v.Informing, cc.ID+" "+string(o.State))
			}
			continue
		}
		if passed {
			v.Required++
			v.Passed++
		} else {
			block(cc.ID + " " + string(o.State) + explain(o))
		}
	}
	return t
}

// conclude sets v's state and reason from its counts and the tally t.
func (v *Verdict) conclude(c Claim, t caseTally) {
	switch {
	case len(t.contradicted) > 0:
		v.State = NotConformant
		var why []string
		for _, cell := range slices.Sorted(maps.Keys(t.contradicted)) {
			why = append(why, fmt.Sprintf("cell %s is not in the state its gates promise: %s", cell, t.contradicted[cell]))
		}
		v.Reason = strings.Join(why, "; ")
	case len(v.Blocking) > 0:
		v.State = NotConformant
		v.Reason = fmt.Sprintf("%d of %d required cases did not pass", len(v.Blocking), v.Required)
	case v.Required == 0:
		v.State, v.Reason = NotApplicable, "none of its cases applies here: "+commonest(t.outside)
	case v.Required < c.MinCases:
		v.State = NotApplicable
		v.Reason = fmt.Sprintf("only %d of its blocking cases apply here, and it stands on no fewer than %d; the others: %s", v.Required, c.MinCases, commonest(t.outside))
	default:
		v.State = Conformant
		v.Reason = fmt.Sprintf("all %d required cases passed", v.Required)
	}
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
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

package bundle

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/report"
)

// Compare says how bundle b's verdicts and outcomes differ from bundle
// a's, one line a difference ("" for none), and how many outcomes were
// compared. Two runs of one draconform on one cluster (certify, and the
// Sonobuoy plugin) must reach the same verdict by the same outcomes; what
// differs between any two runs is not compared: timings, messages (which
// name a run's own namespaces and objects), diagnostics, measurements,
// and the records of the run (command, log, cluster facts).
func Compare(a, b string) (diffs []string, compared int, err error) {
	var va, vb []report.Verdict
	var oa, ob []report.Outcome
	for _, r := range []struct {
		dir, name string
		v         any
	}{{a, VerdictsFile, &va}, {b, VerdictsFile, &vb}, {a, OutcomesFile, &oa}, {b, OutcomesFile, &ob}} {
		if err := readJSON(r.dir, r.name, r.v); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.dir, err)
		}
	}
	diffs = compareVerdicts(va, vb)
	outcomes := compareOutcomes(oa, ob)
	return append(diffs, outcomes...), len(oa), nil
}

// verdictKey is what of a verdict two runs must share. Its reason and the
// entries of its lists may quote a case's message; the cases they name,
// and the counts, are compared instead.
type verdictKey struct {
	State              report.VerdictState
	Passed, Required   int
	Blocking, Informed string
}

func keyOf(v report.Verdict) verdictKey {
	return verdictKey{State: v.State, Passed: v.Passed, Required: v.Required, Blocking: caseIDs(v.Blocking), Informed: caseIDs(v.Informing)}
}

// caseIDs are the cases a verdict's list names, each entry's first word.
func caseIDs(entries []string) string {
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		id, _, _ := strings.Cut(e, " ")
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return strings.Join(ids, ", ")
}

// verdictName names a verdict by its claim and implementation, as the
// lines of two runs are matched.
func verdictName(v report.Verdict) string { return v.Claim + " on " + v.Target }

func compareVerdicts(a, b []report.Verdict) []string {
	name := verdictName
	state := func(v report.Verdict) string { return strings.ToUpper(string(v.State)) }
	bs := map[string]report.Verdict{}
	for _, v := range b {
		bs[name(v)] = v
	}
	var out []string
	for _, va := range a {
		vb, ok := bs[name(va)]
		delete(bs, name(va))
		ka, kb := keyOf(va), keyOf(vb)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("verdict of %s: %s in the first, none in the second", name(va), state(va)))
		case ka.State != kb.State:
			out = append(out, fmt.Sprintf("verdict of %s: %s in the first (%s), %s in the second (%s)", name(va), state(va), va.Reason, state(vb), vb.Reason))
		case ka != kb:
			out = append(out, fmt.Sprintf("verdict of %s: %d of %d required cases passed, blocking [%s], informing [%s] in the first; %d of %d, blocking [%s], informing [%s] in the second",
				name(va), ka.Passed, ka.Required, ka.Blocking, ka.Informed, kb.Passed, kb.Required, kb.Blocking, kb.Informed))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(bs)) {
		out = append(out, fmt.Sprintf("verdict of %s: none in the first, %s in the second", n, state(bs[n])))
	}
	return out
}

// runNames are the names a run gives what it creates, dc-<run id>-...
// (runner.NewRunID: five of [a-z0-9]), which a note may quote: two runs
// say the same note of their own objects.
var runNames = regexp.MustCompile(`\bdc-[a-z0-9]{5}-`)

// outcomeKey is what of an outcome two runs must share: its state and
// the stable words beside it.
type outcomeKey struct {
	State                                  report.State
	Cause, Gap, Note                       string
	Known, Contested, Informing, Inapplies bool
}

func (k outcomeKey) String() string {
	s := string(k.State)
	for _, w := range []string{k.Cause, k.Gap, k.Note} {
		if w != "" {
			s += ", " + w
		}
	}
	for _, f := range []struct {
		word string
		on   bool
	}{{"known issue", k.Known}, {"contested", k.Contested}, {"informing", k.Informing}, {"inapplicable", k.Inapplies}} {
		if f.on {
			s += ", " + f.word
		}
	}
	return s
}

func outcomeKeys(outcomes []report.Outcome) (map[string]outcomeKey, map[string]string) {
	keys, msgs := map[string]outcomeKey{}, map[string]string{}
	for _, o := range outcomes {
		id := o.ID + " on " + o.Target
		keys[id] = outcomeKey{State: o.State, Cause: o.Cause, Gap: o.Gap, Note: runNames.ReplaceAllString(o.Note, "dc-<run>-"), Known: o.Known, Contested: o.Contested, Informing: o.Informing, Inapplies: o.Inapplicable}
		msgs[id] = o.Message
	}
	return keys, msgs
}

func compareOutcomes(a, b []report.Outcome) []string {
	ka, _ := outcomeKeys(a)
	kb, msgs := outcomeKeys(b)
	var out []string
	for _, id := range slices.Sorted(maps.Keys(ka)) {
		got, ok := kb[id]
		delete(kb, id)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: %s in the first, no outcome in the second", id, ka[id]))
		case got != ka[id]:
			line := fmt.Sprintf("%s: %s in the first, %s in the second", id, ka[id], got)
			if msgs[id] != "" {
				line += " (" + firstLine(msgs[id]) + ")"
			}
			out = append(out, line)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(kb)) {
		out = append(out, fmt.Sprintf("%s: no outcome in the first, %s in the second", id, kb[id]))
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

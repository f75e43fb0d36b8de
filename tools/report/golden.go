package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
)

// Golden is the expected outcome of every case in every cell on every
// implementation the project runs (the embedded default's, and kind's), keyed "<target> <suite/case@cell>":
// its state (passed, failed, skipped) with the cause where the state alone
// hides it ("skipped: needs ...", "passed: the control plane refused ...")
// and, for a case pinning an upstream gap, whether the gap is present.
// Comparing each run with it shows at once a change to the suite, or to an
// implementation, that flips an outcome, including a case that quietly
// starts to skip, or to skip for another reason.
type Golden map[string]string

// GoldenValue is how the golden table records o.
func (o Outcome) GoldenValue() string {
	v := string(o.State)
	if o.Cause != "" {
		v += ": " + o.Cause
	}
	if o.Gap != "" {
		v += " (gap " + o.Gap + ")"
	}
	return v
}

func goldenKey(o Outcome) string { return o.Target + " " + o.ID }

// LoadGolden reads a golden table.
func LoadGolden(path string) (Golden, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("golden outcomes: %w", err)
	}
	g := Golden{}
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("golden outcomes %s: %w", path, err)
	}
	return g, nil
}

// GoldenOf records the outcomes of a run.
func GoldenOf(outcomes []Outcome) Golden {
	g := Golden{}
	for _, o := range outcomes {
		g[goldenKey(o)] = o.GoldenValue()
	}
	return g
}

// Merge records outcomes in g, keeping what they do not cover, each under
// the implementation as maps its target to: a run of the kind provider with
// the prototype's binaries is recorded as another implementation than the
// same provider with the node image's own.
func (g Golden) Merge(outcomes []Outcome, as map[string]string) {
	for _, o := range outcomes {
		if to, ok := as[o.Target]; ok {
			o.Target = to
		}
		g[goldenKey(o)] = o.GoldenValue()
	}
}

// Save writes the table with sorted keys, one per line, for readable diffs.
func (g Golden) Save(path string) error {
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Targets are the implementations g has outcomes of.
func (g Golden) Targets() map[string]bool {
	targets := map[string]bool{}
	for k := range g {
		target, _, _ := strings.Cut(k, " ")
		targets[target] = true
	}
	return targets
}

// A Deviation is one outcome of a run that differs from the golden table.
type Deviation struct {
	Target, ID string
	Got        string // "" when the run did not produce the outcome
	Want       string // "" when the golden table has no outcome for it
}

// Key is the deviation's key in the golden table.
func (d Deviation) Key() string { return d.Target + " " + d.ID }

func (d Deviation) String() string {
	name := Outcome{Target: d.Target, ID: d.ID}.Name()
	switch {
	case d.Want == "":
		return fmt.Sprintf("%s: %s, and the golden table has no outcome for it", name, d.Got)
	case d.Got == "":
		return fmt.Sprintf("%s: missing from the run, golden outcome %s", name, d.Want)
	}
	return fmt.Sprintf("%s: %s, golden outcome %s", name, d.Got, d.Want)
}

// Deviations lists, sorted by key, how outcomes differ from g.
// Implementations g does not know (a kubeconfig cluster, a broken variant)
// are not compared; a case g does not know on one it does know is a
// deviation, so a new case needs its golden outcome written down. With
// complete, the run claims to be whole: every golden outcome of an
// implementation it ran must be in it, so a case that silently stops
// running is seen. A focused run passes false.
func (g Golden) Deviations(outcomes []Outcome, complete bool) []Deviation {
	known := g.Targets()
	var out []Deviation
	ran, produced := map[string]bool{}, map[string]bool{}
	for _, o := range outcomes {
		if !known[o.Target] {
			continue
		}
		ran[o.Target] = true
		produced[goldenKey(o)] = true
		if want := g[goldenKey(o)]; want != o.GoldenValue() {
			out = append(out, Deviation{Target: o.Target, ID: o.ID, Got: o.GoldenValue(), Want: want})
		}
	}
	if complete {
		for k, want := range g {
			target, id, _ := strings.Cut(k, " ")
			if ran[target] && !produced[k] {
				out = append(out, Deviation{Target: target, ID: id, Want: want})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

// A GoldenCheck is what comparing a run with the golden table found.
type GoldenCheck struct {
	Diffs []string
	// Compared and NotCompared are the run's implementations (after
	// mapping) the table knows, and those it has no outcomes of.
	Compared, NotCompared []string
}

// Check compares a run with g. complete says the run was not narrowed by
// a selection (--focus, --label-filter, --cells, --suite), so every golden
// outcome of an implementation it ran must be in it. as maps a target of
// the run to the implementation of g its outcomes must equal (a static
// build of the prototype, say). Outcomes of an implementation g does not
// know are not compared, and the result says so: a caller must never
// report a match of what it did not compare.
func (g Golden) Check(outcomes []Outcome, complete bool, as map[string]string) (GoldenCheck, error) {
	known := g.Targets()
	for from, to := range as {
		if !known[to] {
			return GoldenCheck{}, fmt.Errorf("--golden-as %s=%s: the golden table has no outcomes of %s (it knows %s)", from, to, to, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
	}
	var res GoldenCheck
	mapped := make([]Outcome, 0, len(outcomes))
	for _, o := range outcomes {
		if to, ok := as[o.Target]; ok {
			o.Target = to
		}
		list := &res.NotCompared
		if known[o.Target] {
			list = &res.Compared
		}
		if !slices.Contains(*list, o.Target) {
			*list = append(*list, o.Target)
		}
		mapped = append(mapped, o)
	}
	for _, d := range g.Deviations(mapped, complete) {
		res.Diffs = append(res.Diffs, d.String())
	}
	return res, nil
}

// Compare lists, as sentences, how a run that may be focused differs from g.
func (g Golden) Compare(outcomes []Outcome) []string {
	res, _ := g.Check(outcomes, false, nil)
	return res.Diffs
}

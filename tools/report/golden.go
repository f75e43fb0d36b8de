package report

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Golden is the expected state (passed, failed, skipped) of every case in
// every cell on every implementation the embedded default runs, keyed
// "<target> <suite/case@cell>". Comparing each run with it shows at once a
// change to the suite, or to an implementation, that flips an outcome,
// including a case that quietly starts to skip.
type Golden map[string]string

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
		g[goldenKey(o)] = o.State
	}
	return g
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
		if want := g[goldenKey(o)]; want != o.State {
			out = append(out, Deviation{Target: o.Target, ID: o.ID, Got: o.State, Want: want})
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

// Compare lists, as sentences, how a run that may be focused differs from g.
func (g Golden) Compare(outcomes []Outcome) []string {
	var diffs []string
	for _, d := range g.Deviations(outcomes, false) {
		diffs = append(diffs, d.String())
	}
	return diffs
}

package report

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
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

// Compare lists how outcomes differ from g. Implementations g does not know
// (a kubeconfig cluster, a broken variant) are not compared; a case g does
// not know on one it does know is reported, so a new case needs its golden
// outcome written down.
func (g Golden) Compare(outcomes []Outcome) []string {
	targets := map[string]bool{}
	for k := range g {
		for i := range k {
			if k[i] == ' ' {
				targets[k[:i]] = true
				break
			}
		}
	}
	var diffs []string
	for _, o := range outcomes {
		if !targets[o.Target] {
			continue
		}
		want, ok := g[goldenKey(o)]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: %s, and the golden table has no outcome for it", o.Name(), o.State))
		case want != o.State:
			diffs = append(diffs, fmt.Sprintf("%s: %s, golden outcome %s", o.Name(), o.State, want))
		}
	}
	sort.Strings(diffs)
	return diffs
}

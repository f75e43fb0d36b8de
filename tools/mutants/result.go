package mutants

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/draconform/draconform/tools/report"
)

// Result is what one run of the suite against a mutant showed. `draconform
// mutation` records them in docs/mutation.json; the README's table is
// generated from that file.
type Result struct {
	Provider   string `json:"provider"`
	Mistake    string `json:"mistake"`
	Equivalent string `json:"equivalent,omitempty"`
	// Caught are the cases that failed on the mutant for what they checked
	// and passed on the prototype in the same mutation run.
	Caught []string `json:"caught"`
	// FailedOnReference are cases that failed on the mutant and did not
	// pass on the prototype either: not counted as catching it.
	FailedOnReference []string `json:"failedOnReference,omitempty"`
	// Seconds is how long the run took (the binaries were already built).
	Seconds int `json:"seconds"`
}

// Killed says whether some case caught the mutant.
func (r Result) Killed() bool { return len(r.Caught) > 0 }

// Judge applies the kill rule: a case catches a mutant when it failed on
// the mutant for what it checked, and passed on the prototype in the
// reference run. A cluster or node that did not start is no catch but an
// error of the mutation run, since nothing was checked.
func Judge(m Mutant, outcomes []report.Outcome, reference map[string]report.Outcome) (Result, error) {
	r := Result{Provider: m.Provider, Mistake: m.Mistake, Equivalent: m.Equivalent, Caught: []string{}}
	var unstarted []string
	for _, o := range outcomes {
		if o.State != report.Failed {
			continue
		}
		if o.StartFailure() {
			unstarted = append(unstarted, o.ID)
			continue
		}
		if ref, ok := reference[o.ID]; !ok || ref.State != report.Passed {
			r.FailedOnReference = append(r.FailedOnReference, o.ID)
			continue
		}
		r.Caught = append(r.Caught, o.ID)
	}
	if len(unstarted) > 0 {
		return r, fmt.Errorf("%d cases failed because a cluster or node did not start (first %s), which says nothing of what the suite catches; fix the start and rerun it with --mutants", len(unstarted), unstarted[0])
	}
	return r, nil
}

// LoadResults reads docs/mutation.json; a missing file is empty.
func LoadResults(path string) ([]Result, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rs []Result
	if err := json.Unmarshal(data, &rs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rs, nil
}

// MergeResults replaces the results of the mutants in fresh and keeps the
// others, in the order of order (the catalogue's, Names), so that
// re-running one mutant updates its row only. Results of mutants that no
// longer exist are dropped.
func MergeResults(old, fresh []Result, order []string) []Result {
	by := map[string]Result{}
	for _, r := range old {
		by[r.Provider] = r
	}
	for _, r := range fresh {
		by[r.Provider] = r
	}
	var out []Result
	for _, p := range order {
		if r, ok := by[p]; ok {
			out = append(out, r)
		}
	}
	return out
}

// SaveResults writes the results as indented JSON.
func SaveResults(path string, rs []Result) error {
	for i := range rs {
		sort.Strings(rs[i].Caught)
	}
	data, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

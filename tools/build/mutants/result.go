package mutants

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
)

// Result is what one run of the suite against a mutant showed. `draconform
// mutation` records them in docs/mutation.json; the README's table is
// generated from that file.
type Result struct {
	Provider   string `json:"provider"`
	Mistake    string `json:"mistake"`
	Equivalent string `json:"equivalent,omitempty"`
	// Legal is set for a legal variant: why the KEP allows it. Its Breaks
	// must stay empty; a claim it breaks is a defect of the suite.
	Legal string `json:"legal,omitempty"`
	// SuiteDigest is the digest of the suites and fixtures the mutant was
	// judged on: a result of other suites says nothing of these, and lint
	// says so.
	SuiteDigest string `json:"suiteDigest"`
	// Breaks are the claims the mutant is not conformant to, each standing
	// on the prototype in the same mutation run, with the blocking cases
	// that broke it: what `draconform certify --claim` on the mutant
	// would refuse.
	Breaks []Break `json:"breaks"`
	// Caught are the cases that failed on the mutant for what they checked
	// and passed on the prototype in the same mutation run, blocking or
	// informing.
	Caught []string `json:"caught"`
	// FailedOnReference are cases that failed on the mutant and did not
	// pass on the prototype either: not counted as catching it.
	FailedOnReference []string `json:"failedOnReference,omitempty"`
	// Held are, for a legal variant, what each case that did not fail on it
	// ran (the plan's digest, by id): it certifies on later suites while
	// every case that blocks a claim still runs what it ran then.
	Held map[string]string `json:"held,omitempty"`
	// Seconds is how long the run took (the binaries were already built).
	Seconds int `json:"seconds"`
}

// Break is one claim a mutant breaks.
type Break struct {
	Claim string `json:"claim"`
	// Cases are the claim's blocking cases that did not pass on the mutant.
	Cases []string `json:"cases"`
	// Digests are what each of Cases ran when it caught the mutant (the
	// plan's digest of the case): the break holds on later suites as long
	// as each case still runs that and still blocks the claim, so a new
	// case elsewhere needs no new mutation run.
	Digests map[string]string `json:"digests,omitempty"`
	// Contradicted says a cell's probe contradicted its gates on the
	// mutant, which makes every case of the claim block, informing ones
	// included.
	Contradicted bool `json:"contradicted,omitempty"`
}

// Killed says whether the mutant breaks a claim: a case that only informs
// can fail on it and still let it certify, so it kills nothing.
func (r Result) Killed() bool { return r.Legal == "" && len(r.Breaks) > 0 }

// Defect says whether a legal variant breaks a claim the prototype earns:
// the suite asks for more than the KEP there.
func (r Result) Defect() bool { return r.Legal != "" && len(r.Breaks) > 0 }

// InformingOnly are the caught cases that break no claim.
func (r Result) InformingOnly() []string {
	blocking := map[string]bool{}
	for _, b := range r.Breaks {
		for _, c := range b.Cases {
			blocking[c] = true
		}
	}
	var out []string
	for _, c := range r.Caught {
		if !blocking[c] {
			out = append(out, c)
		}
	}
	return out
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
	data, err := EncodeResults(rs)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// EncodeResults is the file SaveResults writes.
func EncodeResults(rs []Result) ([]byte, error) {
	for i := range rs {
		sort.Strings(rs[i].Caught)
	}
	data, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

package mutation

import (
	"sync"

	"github.com/draconform/draconform/tools/build/mutants"
)

// Recorder merges each finished mutant into the results file at once, so
// an interrupted campaign keeps what it measured (rerun the rest with
// --mutants).
type Recorder struct {
	path  string
	order []string
	mu    sync.Mutex
	rows  []mutants.Result
	fresh []mutants.Result
}

// LoadRecorder reads the results file at path ("": keep nothing), whose
// rows follow the catalogue's order.
func LoadRecorder(path string, order []string) (*Recorder, error) {
	r := &Recorder{path: path, order: order}
	if path == "" {
		return r, nil
	}
	old, err := mutants.LoadResults(path)
	r.rows = old
	return r, err
}

func (r *Recorder) add(res mutants.Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fresh = append(r.fresh, res)
	r.rows = mutants.MergeResults(r.rows, []mutants.Result{res}, r.order)
	if r.path == "" {
		return nil
	}
	return mutants.SaveResults(r.path, r.rows)
}

// Rows are every result, the file's and this campaign's merged.
func (r *Recorder) Rows() []mutants.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rows
}

// Fresh are this campaign's results alone.
func (r *Recorder) Fresh() []mutants.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fresh
}

// Survivors are the fresh results of mutants no blocking case killed and
// that are not equivalent: each needs a case.
func (r *Recorder) Survivors() []mutants.Result {
	var out []mutants.Result
	for _, res := range r.Fresh() {
		if res.Legal == "" && !res.Killed() && res.Equivalent == "" {
			out = append(out, res)
		}
	}
	return out
}

// Defects are the fresh results of legal variants that break a claim: each
// is a case that asks for more than the KEP.
func (r *Recorder) Defects() []mutants.Result {
	var out []mutants.Result
	for _, res := range r.Fresh() {
		if res.Defect() {
			out = append(out, res)
		}
	}
	return out
}

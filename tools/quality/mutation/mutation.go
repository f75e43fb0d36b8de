// Package mutation runs the suite against known-broken implementations
// and legal variants (tools/build/mutants) beside the unmutated prototype,
// judges each, and records the results: `draconform mutation` gives it its
// flags and prints.
package mutation

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/runner/shards"
)

// Campaign is one run of mutants, each a process of its own (ginkgo runs
// one suite per process), judged against one reference run.
type Campaign struct {
	// Dir holds a folder per run, named for its provider.
	Dir     string
	Mutants []mutants.Mutant
	// Parallel is how many runs go at once, the reference's included.
	Parallel int
	// SuiteDigest and CaseDigests are the suites every mutant is judged on.
	SuiteDigest string
	CaseDigests map[string]string
	// Log takes the progress lines; Failed each mutant that could not be
	// judged (the campaign goes on with the others).
	Log    io.Writer
	Failed func(error)
}

// Run runs the reference and the mutants and adds each judged mutant to
// rec as it finishes; it says whether every mutant was judged.
func (c Campaign) Run(ctx context.Context, rec *Recorder) bool {
	// Runs are mostly waiting (a killed mutant's failing cases wait out
	// their bounds), so a few at once use the machine better; each has its
	// own control planes on free ports.
	sem := make(chan struct{}, max(1, c.Parallel))
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := true
	// The unmutated prototype runs beside the mutants, under the same load:
	// a case counts against a mutant only where it passed here.
	ref := &reference{done: make(chan struct{}), suiteDigest: c.SuiteDigest, caseDigests: c.CaseDigests}
	sem <- struct{}{}
	go func() {
		defer func() { <-sem }()
		ref.run(ctx, c.Dir, c.Log)
	}()
	for i, m := range c.Mutants {
		sem <- struct{}{} // in list order, so builds are awaited in order
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := runMutant(ctx, c.Dir, m, i+1, len(c.Mutants), ref, c.Log)
			if err == nil {
				err = rec.add(r)
			}
			if err != nil {
				mu.Lock()
				ok = false
				mu.Unlock()
				c.Failed(err)
			}
		}()
	}
	wg.Wait()
	return ok
}

// reference is the run of the unmutated prototype the mutants' runs are
// judged against.
type reference struct {
	done     chan struct{}
	measured Run
	err      error
	// suiteDigest and caseDigests are the suites every mutant is judged on.
	suiteDigest string
	caseDigests map[string]string
}

func (r *reference) run(ctx context.Context, dir string, log io.Writer) {
	defer close(r.done)
	out := filepath.Join(dir, mutants.Reference)
	fmt.Fprintf(log, "mutation: running the suite against the unmutated prototype, the reference (log %s)\n", filepath.Join(out, "run.log"))
	outcomes, err := shards.Child(ctx, out, "--provider", mutants.Reference)
	if err == nil {
		r.measured.Verdicts, err = shards.ChildVerdicts(out)
	}
	if err != nil {
		r.err = fmt.Errorf("the reference run of the prototype: %w", err)
		return
	}
	r.measured.Outcomes = outcomes
	var broken []string
	for _, o := range outcomes {
		if o.StartFailure() {
			broken = append(broken, o.ID)
		}
	}
	if len(broken) > 0 {
		r.err = fmt.Errorf("the reference run of the prototype could not start a cluster or node for %d cases (first %s; see %s): no mutant can be judged against it", len(broken), broken[0], out)
	}
}

func (r *reference) wait(ctx context.Context) (Run, error) {
	select {
	case <-r.done:
		return r.measured, r.err
	case <-ctx.Done():
		return Run{}, ctx.Err()
	}
}

func runMutant(ctx context.Context, dir string, m mutants.Mutant, i, n int, ref *reference, log io.Writer) (mutants.Result, error) {
	out := filepath.Join(dir, m.Provider)
	fmt.Fprintf(log, "mutation: %d/%d: running the suite against %s (log %s)\n", i, n, m.Provider, filepath.Join(out, "run.log"))
	began := time.Now()
	var got Run
	var err error
	got.Outcomes, err = shards.Child(ctx, out, "--provider", m.Provider)
	if err == nil {
		got.Verdicts, err = shards.ChildVerdicts(out)
	}
	if err != nil {
		return mutants.Result{}, fmt.Errorf("mutant %s: %w", m.Provider, err)
	}
	want, err := ref.wait(ctx)
	if err != nil {
		return mutants.Result{}, fmt.Errorf("mutant %s: %w", m.Provider, err)
	}
	r, err := Judge(m, ref.suiteDigest, ref.caseDigests, got, want)
	if err != nil {
		return mutants.Result{}, fmt.Errorf("mutant %s (see %s): %w", m.Provider, out, err)
	}
	r.Seconds = int(time.Since(began).Seconds())
	var broken []string
	for _, b := range r.Breaks {
		broken = append(broken, b.Claim)
	}
	if m.Legal != "" {
		verdict := "certifies every claim the prototype earns"
		if len(broken) > 0 {
			verdict = "DOES NOT certify " + strings.Join(broken, ", ") + ": a defect of the suite"
		}
		fmt.Fprintf(log, "mutation: %s (legal variant): %s; %d cases failed on it (%d did not pass on the prototype either); in %s\n",
			m.Provider, verdict, len(r.Caught), len(r.FailedOnReference), time.Since(began).Round(time.Second))
		return r, nil
	}
	fmt.Fprintf(log, "mutation: %s: %d cases caught it (%d did not pass on the prototype either, not counted); claims it breaks: %s; in %s\n",
		m.Provider, len(r.Caught), len(r.FailedOnReference), orNone(strings.Join(broken, ", ")), time.Since(began).Round(time.Second))
	return r, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

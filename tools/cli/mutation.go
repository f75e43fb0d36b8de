package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/quality/docs"
	"github.com/draconform/draconform/tools/runner"
	"github.com/draconform/draconform/tools/runner/shards"
	"github.com/spf13/pflag"
)

// mutationCmd runs the whole suite against known-broken implementations and
// records which cases caught each: a mutant no case kills is a missing case.
// Each run is a process of its own (ginkgo runs one suite per process), and
// its outcomes.json says which cases failed. The results are merged into
// docs/mutation.json, and docs/mutation.md's table is regenerated from it.
func mutationCmd(fs *pflag.FlagSet) action {
	out := fs.String("out", "", "directory for each mutant's run (default: _output/mutation-<id>)")
	only := fs.String("mutants", "", "comma-separated mutants to run (default: all; see --list)")
	list := fs.Bool("list", false, "list the mutants and exit")
	results := fs.String("results", "", "merge the results into this JSON file (e.g. docs/mutation.json)")
	tablePage := fs.String("table", "", "regenerate the mutation table of this Markdown page from --results (e.g. docs/mutation.md)")
	parallel := fs.Int("parallel", 1, "how many mutants to run at once")
	return func(ctx context.Context, args []string, s Streams) int {
		all := mutants.All()
		if *list {
			for _, m := range all {
				fmt.Fprintf(s.Out, "%-44s %s\n", m.Provider, m.Mistake)
			}
			return 0
		}
		selected, err := selectMutants(all, splitList(*only))
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 2
		}
		if *tablePage != "" && *results == "" {
			fmt.Fprintln(s.Err, "draconform: --table needs --results, the file the table is generated from")
			return 2
		}
		dir, err := outputDir(*out, "mutation-"+runner.NewRunID())
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 1
		}
		rec := &mutationRecorder{path: *results, order: mutants.Names()}
		if err := rec.load(); err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 1
		}
		// Runs are mostly waiting (a killed mutant's failing cases wait out
		// their bounds), so a few at once use the machine better; each has its
		// own control planes on free ports.
		sem := make(chan struct{}, max(1, *parallel))
		var wg sync.WaitGroup
		var failed atomic.Bool
		// The unmutated prototype runs beside the mutants, under the same load:
		// a case counts against a mutant only where it passed here.
		// What the mutants are judged on is the same for every one of them:
		// read once, before any run, so that an unloadable suite fails now.
		digests, err := builtInCaseDigests()
		if err != nil {
			fmt.Fprintln(s.Err, "draconform mutation:", err)
			return 1
		}
		ref := &reference{done: make(chan struct{}), suiteDigest: suiteDigest(), caseDigests: digests}
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			ref.run(ctx, dir, s)
		}()
		for i, m := range selected {
			sem <- struct{}{} // in list order, so builds are awaited in order
			if ctx.Err() != nil {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				r, err := runMutant(ctx, dir, m, i+1, len(selected), ref, s)
				if err == nil {
					err = rec.add(r)
				}
				if err != nil {
					fmt.Fprintln(s.Err, "draconform:", err)
					failed.Store(true)
				}
			}()
		}
		wg.Wait()
		if failed.Load() {
			return 1
		}
		fresh, rows := rec.fresh, rec.rows
		md := docs.MutationTable(rows)
		fmt.Fprint(s.Out, "\n"+md)
		if *tablePage != "" {
			if err := writeMutationTable(*tablePage, md); err != nil {
				fmt.Fprintln(s.Err, "draconform:", err)
				return 1
			}
			fmt.Fprintln(s.Out, "wrote the mutation table into", *tablePage)
		}
		survivors := 0
		for _, r := range fresh {
			if !r.Killed() && r.Equivalent == "" {
				survivors++
				if len(r.Caught) > 0 {
					fmt.Fprintf(s.Err, "draconform: mutant %s survived: only informing cases caught it (%s), so every claim stands on it; it needs a blocking case\n", r.Provider, strings.Join(r.Caught, ", "))
					continue
				}
				fmt.Fprintf(s.Err, "draconform: mutant %s survived: it needs a case that catches it\n", r.Provider)
			}
		}
		if survivors > 0 {
			return 1
		}
		return 0
	}
}

func selectMutants(all []mutants.Mutant, names []string) ([]mutants.Mutant, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []mutants.Mutant
	for _, n := range names {
		m, ok := mutants.Lookup(n)
		if !ok {
			return nil, fmt.Errorf("unknown mutant %q (draconform mutation --list)", n)
		}
		out = append(out, m)
	}
	return out, nil
}

// reference is the run of the unmutated prototype the mutants' runs are
// judged against.
type reference struct {
	done     chan struct{}
	measured mutants.Run
	err      error
	// suiteDigest and caseDigests are the suites every mutant is judged on.
	suiteDigest string
	caseDigests map[string]string
}

func (r *reference) run(ctx context.Context, dir string, s Streams) {
	defer close(r.done)
	out := filepath.Join(dir, referenceProvider)
	fmt.Fprintf(s.Out, "mutation: running the suite against the unmutated prototype, the reference (log %s)\n", filepath.Join(out, "run.log"))
	outcomes, err := shards.Child(ctx, out, "--provider", referenceProvider)
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

func (r *reference) wait(ctx context.Context) (mutants.Run, error) {
	select {
	case <-r.done:
		return r.measured, r.err
	case <-ctx.Done():
		return mutants.Run{}, ctx.Err()
	}
}

// referenceProvider is the implementation every mutant is a variant of.
const referenceProvider = mutants.Reference

func runMutant(ctx context.Context, dir string, m mutants.Mutant, i, n int, ref *reference, s Streams) (mutants.Result, error) {
	out := filepath.Join(dir, m.Provider)
	fmt.Fprintf(s.Out, "mutation: %d/%d: running the suite against %s (log %s)\n", i, n, m.Provider, filepath.Join(out, "run.log"))
	began := time.Now()
	var got mutants.Run
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
	r, err := mutants.Judge(m, ref.suiteDigest, ref.caseDigests, got, want)
	if err != nil {
		return mutants.Result{}, fmt.Errorf("mutant %s (see %s): %w", m.Provider, out, err)
	}
	r.Seconds = int(time.Since(began).Seconds())
	var broken []string
	for _, b := range r.Breaks {
		broken = append(broken, b.Claim)
	}
	fmt.Fprintf(s.Out, "mutation: %s: %d cases caught it (%d did not pass on the prototype either, not counted); claims it breaks: %s; in %s\n",
		m.Provider, len(r.Caught), len(r.FailedOnReference), orNone(strings.Join(broken, ", ")), time.Since(began).Round(time.Second))
	return r, nil
}

func writeMutationTable(page, table string) error {
	text, err := pageWithMutationTable(page, table)
	if err != nil {
		return err
	}
	return os.WriteFile(page, []byte(text), 0o644)
}

// pageWithMutationTable is the page at path with its generated mutation
// table replaced by table.
func pageWithMutationTable(path, table string) (string, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	out, err := docs.SpliceMutationTable(string(text), table)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// mutationRecorder merges each finished mutant into the results file at
// once, so an interrupted run keeps what it measured (rerun the rest with
// --mutants).
type mutationRecorder struct {
	path  string
	order []string
	mu    sync.Mutex
	rows  []mutants.Result
	fresh []mutants.Result
}

func (r *mutationRecorder) load() error {
	if r.path == "" {
		return nil
	}
	old, err := mutants.LoadResults(r.path)
	r.rows = old
	return err
}

func (r *mutationRecorder) add(res mutants.Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fresh = append(r.fresh, res)
	r.rows = mutants.MergeResults(r.rows, []mutants.Result{res}, r.order)
	if r.path == "" {
		return nil
	}
	return mutants.SaveResults(r.path, r.rows)
}

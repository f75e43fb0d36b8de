package usecase

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/quality/docs"
	"github.com/draconform/draconform/tools/quality/mutation"
	"github.com/draconform/draconform/tools/runner"
)

// MutationRequest runs the whole suite against known-broken implementations and
// records which cases caught each: a mutant no case kills is a missing case.
// It runs the legal variants too, which the KEP allows: one that a claim
// refuses is a case that asks for more than the KEP.
// Each run is a process of its own (ginkgo runs one suite per process), and
// its outcomes.json says which cases failed. The results are merged into
// docs/mutation.json, and docs/mutation.md's table is regenerated from it.
type MutationRequest struct {
	// Out is the folder of each mutant's run; Mutants the comma-separated
	// mutants and legal variants to run ("" for all); Results the JSON
	// file the results merge into; Table the Markdown page whose table is
	// regenerated from it.
	Out, Mutants, Results, Table string
	Parallel                     int
}

// MutationResult is the mutation table, and what it found wrong: a line
// for each mutant that survived and each legal variant a claim refuses.
type MutationResult struct {
	Table    string
	Problems []string
}

// ListMutants writes the mutants and the legal variants, one a line.
func ListMutants(w io.Writer) {
	for _, m := range mutants.Catalogue() {
		kind := "mutant "
		if m.Legal != "" {
			kind = "variant"
		}
		fmt.Fprintf(w, "%s %-44s %s\n", kind, m.Provider, m.Mistake)
	}
}

// Mutation runs the campaign; each run's progress goes to s.
func Mutation(ctx context.Context, r MutationRequest, s Streams) (MutationResult, error) {
	selected, err := selectMutants(mutants.Catalogue(), splitList(r.Mutants))
	if err != nil {
		return MutationResult{}, failed(2, err)
	}
	if r.Table != "" && r.Results == "" {
		return MutationResult{}, failed(2, fmt.Errorf("--table needs --results, the file the table is generated from"))
	}
	dir, err := outputDir(r.Out, "mutation-"+runner.NewRunID())
	if err != nil {
		return MutationResult{}, err
	}
	rec, err := mutation.LoadRecorder(r.Results, mutants.Names())
	if err != nil {
		return MutationResult{}, err
	}
	// What the mutants are judged on is the same for every one of them:
	// read once, before any run, so that an unloadable suite fails now.
	digests, err := builtInCaseDigests()
	if err != nil {
		fmt.Fprintln(s.Err, "draconform mutation:", err)
		return MutationResult{}, said(1)
	}
	c := mutation.Campaign{Dir: dir, Mutants: selected, Parallel: r.Parallel, SuiteDigest: suiteDigest(), CaseDigests: digests,
		Log: s.Out, Failed: func(err error) { fmt.Fprintln(s.Err, "draconform:", err) }}
	if !c.Run(ctx, rec) {
		return MutationResult{}, said(1)
	}
	res := MutationResult{Table: docs.MutationTable(rec.Rows()), Problems: mutationProblems(rec)}
	if r.Table != "" {
		if err := docs.WriteMutationTable(r.Table, res.Table); err != nil {
			return res, err
		}
	}
	return res, nil
}

// mutationProblems says of each surviving mutant that it needs a case, and
// of each legal variant a claim refuses that its cases ask too much.
func mutationProblems(rec *mutation.Recorder) []string {
	var out []string
	for _, r := range rec.Survivors() {
		if len(r.Caught) > 0 {
			out = append(out, fmt.Sprintf("mutant %s survived: only informing cases caught it (%s), so every claim stands on it; it needs a blocking case", r.Provider, strings.Join(r.Caught, ", ")))
			continue
		}
		out = append(out, fmt.Sprintf("mutant %s survived: it needs a case that catches it", r.Provider))
	}
	for _, r := range rec.Defects() {
		var claims []string
		for _, b := range r.Breaks {
			claims = append(claims, b.Claim+" ("+strings.Join(b.Cases, ", ")+")")
		}
		out = append(out, fmt.Sprintf("legal variant %s is not certified: %s; the KEP allows it (%s), so those cases ask for more than the KEP: make them as strong as the KEP, or rest them on an open register entry",
			r.Provider, strings.Join(claims, "; "), r.Legal))
	}
	return out
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

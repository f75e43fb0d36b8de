package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/quality/docs"
	"github.com/draconform/draconform/tools/quality/mutation"
	"github.com/draconform/draconform/tools/runner"
	"github.com/spf13/pflag"
)

// mutationCmd runs the whole suite against known-broken implementations and
// records which cases caught each: a mutant no case kills is a missing case.
// It runs the legal variants too, which the KEP allows: one that a claim
// refuses is a case that asks for more than the KEP.
// Each run is a process of its own (ginkgo runs one suite per process), and
// its outcomes.json says which cases failed. The results are merged into
// docs/mutation.json, and docs/mutation.md's table is regenerated from it.
func mutationCmd(fs *pflag.FlagSet) action {
	out := fs.String("out", "", "directory for each mutant's run (default: _output/mutation-<id>)")
	only := fs.String("mutants", "", "comma-separated mutants and legal variants to run (default: all of both; see --list)")
	list := fs.Bool("list", false, "list the mutants and the legal variants, and exit")
	results := fs.String("results", "", "merge the results into this JSON file (e.g. docs/mutation.json)")
	tablePage := fs.String("table", "", "regenerate the mutation table of this Markdown page from --results (e.g. docs/mutation.md)")
	parallel := fs.Int("parallel", 1, "how many mutants to run at once")
	return func(ctx context.Context, args []string, s Streams) int {
		all := mutants.Catalogue()
		if *list {
			for _, m := range all {
				kind := "mutant "
				if m.Legal != "" {
					kind = "variant"
				}
				fmt.Fprintf(s.Out, "%s %-44s %s\n", kind, m.Provider, m.Mistake)
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
		rec, err := mutation.LoadRecorder(*results, mutants.Names())
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 1
		}
		// What the mutants are judged on is the same for every one of them:
		// read once, before any run, so that an unloadable suite fails now.
		digests, err := builtInCaseDigests()
		if err != nil {
			fmt.Fprintln(s.Err, "draconform mutation:", err)
			return 1
		}
		c := mutation.Campaign{Dir: dir, Mutants: selected, Parallel: *parallel, SuiteDigest: suiteDigest(), CaseDigests: digests,
			Log: s.Out, Failed: func(err error) { fmt.Fprintln(s.Err, "draconform:", err) }}
		if !c.Run(ctx, rec) {
			return 1
		}
		md := docs.MutationTable(rec.Rows())
		fmt.Fprint(s.Out, "\n"+md)
		if *tablePage != "" {
			if err := docs.WriteMutationTable(*tablePage, md); err != nil {
				fmt.Fprintln(s.Err, "draconform:", err)
				return 1
			}
			fmt.Fprintln(s.Out, "wrote the mutation table into", *tablePage)
		}
		survivors := rec.Survivors()
		for _, r := range survivors {
			if len(r.Caught) > 0 {
				fmt.Fprintf(s.Err, "draconform: mutant %s survived: only informing cases caught it (%s), so every claim stands on it; it needs a blocking case\n", r.Provider, strings.Join(r.Caught, ", "))
				continue
			}
			fmt.Fprintf(s.Err, "draconform: mutant %s survived: it needs a case that catches it\n", r.Provider)
		}
		defects := rec.Defects()
		for _, r := range defects {
			var claims []string
			for _, b := range r.Breaks {
				claims = append(claims, b.Claim+" ("+strings.Join(b.Cases, ", ")+")")
			}
			fmt.Fprintf(s.Err, "draconform: legal variant %s is not certified: %s; the KEP allows it (%s), so those cases ask for more than the KEP: make them as strong as the KEP, or rest them on an open register entry\n",
				r.Provider, strings.Join(claims, "; "), r.Legal)
		}
		if len(survivors) > 0 || len(defects) > 0 {
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

package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// mutationCmd runs the whole suite against known-broken implementations and
// the legal variants the KEP allows (usecase.Mutation), and shows which
// cases catch each.
func mutationCmd(fs *pflag.FlagSet) action {
	var r usecase.MutationRequest
	fs.StringVar(&r.Out, "out", "", "directory for each mutant's run (default: _output/mutation-<id>)")
	fs.StringVar(&r.Mutants, "mutants", "", "comma-separated mutants and legal variants to run (default: all of both; see --list)")
	list := fs.Bool("list", false, "list the mutants and the legal variants, and exit")
	fs.StringVar(&r.Results, "results", "", "merge the results into this JSON file (e.g. docs/mutation.json)")
	fs.StringVar(&r.Table, "table", "", "regenerate the mutation table of this Markdown page from --results (e.g. docs/mutation.md)")
	fs.IntVar(&r.Parallel, "parallel", 1, "how many mutants to run at once")
	return func(ctx context.Context, args []string, s Streams) int {
		if *list {
			usecase.ListMutants(s.Out)
			return 0
		}
		res, err := usecase.Mutation(ctx, r, s.uc())
		if res.Table != "" {
			fmt.Fprint(s.Out, "\n"+res.Table)
		}
		if err != nil {
			return exit(s, "draconform:", err)
		}
		if r.Table != "" {
			fmt.Fprintln(s.Out, "wrote the mutation table into", r.Table)
		}
		for _, p := range res.Problems {
			fmt.Fprintln(s.Err, "draconform:", p)
		}
		if len(res.Problems) > 0 {
			return 1
		}
		return 0
	}
}

package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/lang/plan"
)

func lintCmd(fs *pflag.FlagSet) action {
	var sf specFlags
	sf.register(fs)
	return func(_ context.Context, args []string, s Streams) int {
		b, code := sf.loadOr(s)
		if b == nil {
			return code
		}
		if probs := plan.ClaimProblems(b); len(probs) > 0 {
			for _, p := range probs {
				fmt.Fprintln(s.Err, p)
			}
			return 1
		}
		cases := 0
		for _, su := range b.Suites {
			cases += len(su.Cases)
		}
		fmt.Fprintf(s.Out, "ok: %d suites, %d cases, %d fixtures, %d cells\n", len(b.Suites), cases, len(b.Fixtures), len(b.Cells))
		return 0
	}
}

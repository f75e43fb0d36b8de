package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/draconform/draconform/tools/plan"
	"github.com/spf13/pflag"
)

func planCmd(fs *pflag.FlagSet) action {
	var sf specFlags
	var pf planFlags
	sf.register(fs)
	pf.register(fs)
	return func(_ context.Context, args []string, s Streams) int {
		b := sf.loadOrReport(s)
		if b == nil {
			return 1
		}
		cases := plan.Expand(b, pf.filter())
		for _, c := range cases {
			fmt.Fprintf(s.Out, "%s\n    %s\n    labels: %s\n", c.ID, c.Case.Title, strings.Join(c.Labels, ", "))
		}
		fmt.Fprintf(s.Out, "%d cases in %d cells\n", len(cases), len(plan.Cells(cases)))
		return 0
	}
}

package app

import (
	"context"
	"fmt"
)

func lintCmd(_ context.Context, args []string, s Streams) int {
	fs := newFlagSet("lint", s)
	var sf specFlags
	sf.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	b := sf.loadOrReport(s)
	if b == nil {
		return 1
	}
	cases := 0
	for _, su := range b.Suites {
		cases += len(su.Cases)
	}
	fmt.Fprintf(s.Out, "ok: %d suites, %d cases, %d fixtures, %d cells\n", len(b.Suites), cases, len(b.Fixtures), len(b.Cells))
	return 0
}

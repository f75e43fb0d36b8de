package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
)

func planCmd(fs *pflag.FlagSet) action {
	var sf specFlags
	var pf planFlags
	var focus, labels, provider, list string
	sf.register(fs)
	pf.register(fs)
	fs.StringVar(&focus, "focus", "", "as for run: only cases whose suite, description or id (suite/case@cell) matches this regular expression")
	fs.StringVar(&labels, "label-filter", "", "as for run: a ginkgo label filter, e.g. 'suite:kep5075-capacity && !restart'")
	fs.StringVar(&provider, "provider", defaultProviders, "as for run: the implementations, which --label-filter may name (provider:<name>)")
	fs.StringVar(&list, "list", "", "list instead the names a flag takes, one a line: suites, cells, cases, providers or claims")
	return func(_ context.Context, _ []string, s Streams) int {
		if list == "providers" {
			fmt.Fprintln(s.Out, strings.Join(providers.Names(), "\n"))
			return 0
		}
		if rf := checkProviders(provider); rf != nil {
			return printRefusal(s, rf)
		}
		b, code := sf.loadOr(s)
		if b == nil {
			return code
		}
		if list != "" {
			return listNames(b, list, s)
		}
		sel := selection{filter: pf, focus: focus, labels: labels, targets: splitList(provider)}
		_, cases, rf := sel.cases(b)
		if rf != nil {
			return printRefusal(s, rf)
		}
		for _, c := range cases {
			fmt.Fprintf(s.Out, "%s\n    %s\n    labels: %s\n", c.ID, c.Case.Title, strings.Join(c.Labels, ", "))
		}
		fmt.Fprintf(s.Out, "%s in %s\n", textline.Count(len(cases), "case"), textline.Count(len(plan.Cells(cases)), "cell"))
		return 0
	}
}

// listable are the lists --list prints.
var listable = []string{"suites", "cells", "cases", "providers", "claims"}

// listNames prints the names --list asks for.
func listNames(b *loader.Bundle, list string, s Streams) int {
	var names []string
	switch list {
	case "suites":
		for _, su := range b.Suites {
			names = append(names, su.Name)
		}
	case "cells":
		names = b.CellOrder
	case "cases":
		for _, c := range plan.Expand(b, plan.Filter{}) {
			names = append(names, c.ID)
		}
	case "claims":
		for _, c := range b.Claims {
			names = append(names, c.Name)
		}
	default:
		msg := fmt.Sprintf("--list %s: not a list draconform keeps", list)
		if hint := loader.DidYouMean(list, listable); hint != "" {
			msg += " (" + hint + ")"
		}
		return printRefusal(s, refuse("%s\n  the lists: %s", msg, strings.Join(listable, ", ")))
	}
	for _, n := range names {
		fmt.Fprintln(s.Out, n)
	}
	return 0
}

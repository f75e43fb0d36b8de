package usecase

import (
	"fmt"
	"strings"

	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
)

// PlanRequest lists the cases a run would execute, with their labels: as
// for run, the filters and the implementations, which --label-filter may
// name (provider:<name>). List asks instead for the names a flag takes.
type PlanRequest struct {
	Specs                         Specs
	Filter                        Filter
	Focus, Labels, Provider, List string
}

// Plan writes the cases, or the names, on s.Out.
func Plan(r PlanRequest, s Streams) error {
	if r.List == "providers" {
		fmt.Fprintln(s.Out, strings.Join(providers.Names(), "\n"))
		return nil
	}
	if rf := checkProviders(r.Provider); rf != nil {
		return rf
	}
	b, code := r.Specs.loadOr(s)
	if b == nil {
		return said(code)
	}
	if r.List != "" {
		return said(listNames(b, r.List, s))
	}
	sel := selection{filter: r.Filter, focus: r.Focus, labels: r.Labels, targets: splitList(r.Provider)}
	_, cases, rf := sel.cases(b)
	if rf != nil {
		return rf
	}
	for _, c := range cases {
		fmt.Fprintf(s.Out, "%s\n    %s\n    labels: %s\n", c.ID, c.Case.Title, strings.Join(c.Labels, ", "))
	}
	fmt.Fprintf(s.Out, "%s in %s\n", textline.Count(len(cases), "case"), textline.Count(len(plan.Cells(cases)), "cell"))
	return nil
}

// Lint loads and validates the specs and their claims, and counts them on
// s.Out; every problem goes to s.Err with its file:line.
func Lint(specs Specs, s Streams) error {
	b, code := specs.loadOr(s)
	if b == nil {
		return said(code)
	}
	if probs := plan.ClaimProblems(b); len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintln(s.Err, p)
		}
		return said(1)
	}
	cases := 0
	for _, su := range b.Suites {
		cases += len(su.Cases)
	}
	fmt.Fprintf(s.Out, "ok: %d suites, %d cases, %d fixtures, %d cells\n", len(b.Suites), cases, len(b.Fixtures), len(b.Cells))
	return nil
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

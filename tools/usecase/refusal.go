package usecase

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner"
)

// A Refusal is a command line draconform will not run: a misspelt name, a
// selection of nothing, an argument no verb takes. It exits 2, as cobra's
// own refusals and kubectl's do, and says in one or two lines what is
// wrong, the closest valid name, and where the valid names are listed.
type Refusal struct{ msg string }

func (r *Refusal) Error() string { return r.msg }

// Refuse is a refusal, its message formatted as fmt.Sprintf does.
func Refuse(format string, args ...any) *Refusal {
	return &Refusal{fmt.Sprintf(format, args...)}
}

func refuse(format string, args ...any) *Refusal { return Refuse(format, args...) }

// unknownName refuses got, a value of flag that names no valid item of
// kind: the closest valid name if one is close, and the command that lists
// them (draconform plan --list <list>).
func unknownName(flag, got, kind string, valid []string, list string) *Refusal {
	msg := fmt.Sprintf("%s %s: no %s of that name", flag, got, kind)
	if hint := loader.DidYouMean(got, valid); hint != "" {
		msg += " (" + hint + ")"
	}
	return refuse("%s\n  draconform plan --list %s lists them", msg, list)
}

// checkProviders refuses a --provider value before anything is built: a
// misspelt name would otherwise cost the builds of the names before it.
func checkProviders(value string) *Refusal {
	names := splitList(value)
	if len(names) == 0 {
		return refuse("--provider names no implementation\n  draconform plan --list providers lists them")
	}
	for _, n := range names {
		if !providers.Known(n) {
			return unknownName("--provider", n, "implementation", providers.Names(), "providers")
		}
	}
	return nil
}

// checkSpecDir refuses a --suites or --fixtures value that is not a
// folder: the loader would find no file there and report what every
// missing file implies instead of the one mistake.
func checkSpecDir(flag, dir string) *Refusal {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return refuse("%s %s: no such folder (it names a folder of YAML files)", flag, dir)
	case !st.IsDir():
		return refuse("%s %s: a file, not a folder (it names a folder of YAML files; put the file in one)", flag, dir)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.yaml")); len(files) == 0 {
		return refuse("%s %s: no *.yaml file in this folder", flag, dir)
	}
	return nil
}

// selection is what a command line's filters select from the specs.
type selection struct {
	filter        Filter
	focus, labels string
	// targets are the implementations the run is on, which the label
	// filter may name (provider:<name>); a case is selected if it is on
	// any.
	targets []string
}

// cases expands the plan the filters select, or refuses a filter that
// names nothing or selects nothing. The plan keeps every case of the cells
// and suites selected; focused tells which of them --focus and
// --label-filter let through.
func (sel selection) cases(b *loader.Bundle) (all, focused []plan.Case, _ *Refusal) {
	var suites []string
	for _, s := range b.Suites {
		suites = append(suites, s.Name)
	}
	for _, name := range splitList(sel.filter.Suites) {
		if !slices.Contains(suites, name) {
			return nil, nil, unknownName("--suite", name, "suite", suites, "suites")
		}
	}
	for _, name := range splitList(sel.filter.Cells) {
		if !slices.Contains(b.CellOrder, name) {
			return nil, nil, unknownName("--cells", name, "cell", b.CellOrder, "cells")
		}
	}
	all = plan.Expand(b, sel.filter.plan())
	if len(all) == 0 {
		return nil, nil, refuse("--suite %s --cells %s select no case: no case of those suites runs in those cells\n  draconform plan --suite %s lists the cells its cases run in",
			sel.filter.Suites, sel.filter.Cells, sel.filter.Suites)
	}
	matches, err := runner.Selection(sel.focus, sel.labels)
	if err != nil {
		return nil, nil, refuse("%v", err)
	}
	targets := sel.targets
	if len(targets) == 0 {
		targets = []string{""}
	}
	for _, c := range all {
		if slices.ContainsFunc(targets, func(t string) bool { return matches(c.ForTarget(t)) }) {
			focused = append(focused, c)
		}
	}
	if len(focused) == 0 {
		return nil, nil, noMatch(sel, all)
	}
	return all, focused, nil
}

// noMatch refuses a --focus or --label-filter that lets no case through,
// naming the case id closest to the focus.
func noMatch(sel selection, cases []plan.Case) *Refusal {
	var flags []string
	if sel.focus != "" {
		flags = append(flags, fmt.Sprintf("--focus %q", sel.focus))
	}
	if sel.labels != "" {
		flags = append(flags, fmt.Sprintf("--label-filter %q", sel.labels))
	}
	msg := strings.Join(flags, " and ") + " matches no case"
	if len(flags) > 1 {
		msg = strings.Join(flags, " and ") + " match no case"
	}
	if sel.filter.Suites != "" || sel.filter.Cells != "" {
		msg += " of the --suite/--cells selection"
	}
	if hint := loader.DidYouMean(sel.focus, focusCandidates(sel.focus, cases)); sel.focus != "" && hint != "" {
		msg += " (" + hint + ")"
	}
	return refuse("%s\n  draconform plan --list cases lists the case ids (suite/case@cell) --focus matches", msg)
}

// focusCandidates are what a misspelt --focus may have meant: the ids of
// the cases, and since a focus is mostly a part of one (implicit-name),
// every run of as many of an id's words as the focus has.
func focusCandidates(focus string, cases []plan.Case) []string {
	words := len(strings.Split(focus, "-"))
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, c := range cases {
		add(c.ID)
		add(c.Suite.Name + "/" + c.Case.ID)
		parts := strings.Split(c.Case.ID, "-")
		for i := 0; i+words <= len(parts); i++ {
			add(strings.Join(parts[i:i+words], "-"))
		}
	}
	return out
}

// printRefusal prints r as a verb's refusal and returns its exit code.
func printRefusal(s Streams, r *Refusal) int {
	fmt.Fprintln(s.Err, "draconform:", r)
	return 2
}

package report

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/draconform/draconform/tools/internal/textline"
)

// Summary is what the terminal shows at the end of a run, short enough
// that a green full run fits a screen beside its progress lines: the
// suites × implementations table (the cells' counts were the progress
// lines; the suites × cells matrix is in MatrixFile and report.html), every
// failure with its reason, diff and rerun command, the long lists only
// counted, then the verdicts. --verbose shows the whole text instead.
func Summary(outcomes []Outcome, run Run) string {
	var b strings.Builder
	b.WriteString(SuiteTable(outcomes))
	for _, sec := range failureSections {
		b.WriteString(section(outcomes, sec, run.Rerun))
	}
	b.WriteString(elsewhere(outcomes))
	b.WriteString(VerdictLines(run.Verdicts))
	return b.String()
}

// SuiteTable is one row per suite and one column per implementation, each
// the suite's counts over every cell, then the total line a CI log can be
// grepped for.
func SuiteTable(outcomes []Outcome) string {
	var targets, suites []string
	per := map[[2]string]*counts{}
	sums := map[string]*counts{}
	total := counts{}
	for _, o := range outcomes {
		if !slices.Contains(targets, o.Target) {
			targets = append(targets, o.Target)
			sums[o.Target] = &counts{}
		}
		if !slices.Contains(suites, o.Suite) {
			suites = append(suites, o.Suite)
		}
		k := [2]string{o.Suite, o.Target}
		if per[k] == nil {
			per[k] = &counts{}
		}
		per[k].add(o.State)
		sums[o.Target].add(o.State)
		total.add(o.State)
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head := []string{"  suite"}
	for _, t := range targets {
		if t == "" {
			t = "cluster"
		}
		head = append(head, t)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, s := range suites {
		row := []string{"  " + s}
		for _, t := range targets {
			c := counts{}
			if p := per[[2]string{s, t}]; p != nil {
				c = *p
			}
			row = append(row, c.String())
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	row := []string{"  all suites"}
	for _, t := range targets {
		row = append(row, sums[t].String())
	}
	fmt.Fprintln(tw, strings.Join(row, "\t"))
	tw.Flush()
	fmt.Fprintf(&b, "%d passed, %d failed, %d skipped (n/m: passed of run; F: failed; s: skipped)\n", total.passed, total.failed, total.skipped)
	return b.String()
}

// elsewhere counts, in a line or two, what the reports list one by one and
// the terminal does not: skips, upstream gaps, passes on a contested
// reading or a known defect, passes with their accepted outcome noted,
// measurements.
func elsewhere(outcomes []Outcome) string {
	var skipped, inapplicable, notRun, gaps, contested, noted, measured int
	for _, o := range outcomes {
		measured += len(o.Measurements)
		switch {
		case o.State == Skipped && o.Cause == CauseNotRun:
			notRun++
		case o.State == Skipped:
			skipped++
			if o.Inapplicable {
				inapplicable++
			}
		case o.State != Passed:
		case o.Gap != "":
			gaps++
		case o.Contested || o.Known:
			contested++
		case o.Note != "":
			noted++
		}
	}
	var parts []string
	if notRun > 0 {
		parts = append(parts, fmt.Sprintf("%d not run (--fail-fast)", notRun))
	}
	if skipped > 0 {
		parts = append(parts, fmt.Sprintf("%s (%d inapplicable)", textline.Count(skipped, "skip"), inapplicable))
	}
	for _, p := range []struct {
		n    int
		what string
	}{{gaps, "upstream gap"}, {contested, "contested pass"}, {noted, "noted pass"}, {measured, "measurement"}} {
		if p.n > 0 {
			parts = append(parts, textline.Count(p.n, p.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	// A count stays on the line of its noun.
	for i := range parts {
		parts[i] = strings.ReplaceAll(parts[i], " ", "\u00a0")
	}
	items := strings.Split("in the reports (or -v): "+strings.Join(parts, ", "), " ")
	return strings.ReplaceAll(strings.TrimPrefix(wrapWords(items, MatrixWidth), "  "), "\u00a0", " ")
}

// wrapWords joins words with a space into lines of at most width, the
// lines after the first indented by two.
func wrapWords(words []string, width int) string { return joinWrapped(words, " ", width) }

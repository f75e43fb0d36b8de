package report

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/draconform/draconform/tools/internal/textline"
)

// counts of one suite in one cell.
type counts struct{ passed, failed, skipped int }

// String is "passed/ran", then Fn for failures and sn for skips: short, so
// that seven cells fit a terminal.
func (c counts) String() string {
	if c == (counts{}) {
		return "-"
	}
	s := fmt.Sprintf("%d/%d", c.passed, c.passed+c.failed)
	if c.failed > 0 {
		s += fmt.Sprintf(" F%d", c.failed)
	}
	if c.skipped > 0 {
		s += fmt.Sprintf(" s%d", c.skipped)
	}
	return s
}

func (c *counts) add(st State) {
	switch st {
	case Passed:
		c.passed++
	case Failed:
		c.failed++
	default:
		c.skipped++
	}
}

func (c *counts) merge(o counts) {
	c.passed, c.failed, c.skipped = c.passed+o.passed, c.failed+o.failed, c.skipped+o.skipped
}

// MatrixWidth is the widest line Matrix writes, so that it fits a terminal.
const MatrixWidth = 100

// Matrix renders one table per implementation, suites × cells as
// "passed/ran" with failures (F) and skips (s) apart, cells numbered with a
// legend, and a total line a CI log can be grepped for. No line is wider
// than MatrixWidth: a table with too many cells is split.
func Matrix(outcomes []Outcome, cellOrder []string) string {
	var b strings.Builder
	total := counts{}
	for _, g := range gridsOf(outcomes, cellOrder) {
		b.WriteString(targetMatrix(g))
		b.WriteString("\n")
		total.merge(g.sum)
	}
	fmt.Fprintf(&b, "%d passed, %d failed, %d skipped (n/m: passed of run; F: failed; s: skipped)\n", total.passed, total.failed, total.skipped)
	return b.String()
}

func targetMatrix(g grid) string {
	name := g.target
	if name == "" {
		name = "cluster"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d passed, %d failed, %d skipped\n", name, g.sum.passed, g.sum.failed, g.sum.skipped)
	legend := make([]string, len(g.cells))
	for i, c := range g.cells {
		legend[i] = fmt.Sprintf("[%d] %s", i+1, c)
	}
	b.WriteString(wrap(legend, MatrixWidth))
	for _, part := range splitColumns(g) {
		b.WriteString(part)
	}
	return b.String()
}

// splitColumns renders the table, in as few parts as keep every line
// within MatrixWidth.
func splitColumns(g grid) []string {
	for parts := 1; parts <= len(g.cells); parts++ {
		per := (len(g.cells) + parts - 1) / parts
		var out []string
		fits := true
		for from := 0; from < len(g.cells); from += per {
			text := columns(g, from, min(from+per, len(g.cells)))
			for _, line := range strings.Split(text, "\n") {
				fits = fits && len([]rune(line)) <= MatrixWidth
			}
			out = append(out, text)
		}
		if fits || per == 1 {
			return out
		}
	}
	return nil
}

func columns(g grid, from, to int) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head := []string{"  suite"}
	for i := from; i < to; i++ {
		head = append(head, fmt.Sprintf("[%d]", i+1))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, s := range g.suites {
		row := []string{"  " + s}
		for _, c := range g.cells[from:to] {
			row = append(row, g.at(s, c).String())
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	return b.String()
}

// wrap joins items with two spaces into lines of at most width, indented
// by two.
func wrap(items []string, width int) string { return joinWrapped(items, "  ", width) }

// joinWrapped joins items with sep into lines of at most width, each
// indented by two.
func joinWrapped(items []string, sep string, width int) string {
	var b strings.Builder
	line := ""
	for _, it := range items {
		if line != "" && 2+len(line)+len(sep)+len(it) > width {
			b.WriteString("  " + line + "\n")
			line = ""
		}
		if line != "" {
			line += sep
		}
		line += it
	}
	return b.String() + "  " + line + "\n"
}

// Details lists every failure (with its diagnostics file) and every skip
// (with its reason), contested cases and known upstream defects apart.
func Details(outcomes []Outcome, flags RerunFlags) string {
	var b strings.Builder
	for _, sec := range append(slices.Clone(failureSections), passSections...) {
		b.WriteString(section(outcomes, sec, flags))
	}
	measured(&b, outcomes)
	skips(&b, outcomes)
	return b.String()
}

// detailSection is one titled list of Details.
type detailSection struct {
	title string
	keep  func(Outcome) bool
}

// A case on an enforced reading, or one documenting a known defect, blocks
// like any other: only open readings fail apart.
var failureSections = []detailSection{
	{"FAILED", func(o Outcome) bool { return o.State == Failed && !o.Informing }},
	{"FAILED, informing only (an open reading of the KEP, never blocking)", func(o Outcome) bool { return o.State == Failed && o.Informing }},
}

// Information, not a verdict: a newer Kubernetes may close a gap.
var passSections = []detailSection{
	{"upstream gap closed in this cluster (information)", func(o Outcome) bool { return o.State == Passed && o.Gap == "closed" }},
	{"upstream gap present in this cluster (information)", func(o Outcome) bool { return o.State == Passed && o.Gap == "present" }},
	{"passed, contested reading of the KEP", func(o Outcome) bool { return o.State == Passed && o.Contested && o.Gap == "" }},
	{"passed, documents a known upstream defect", func(o Outcome) bool { return o.State == Passed && o.Known && o.Gap == "" }},
	{"passed, with the accepted outcome noted", func(o Outcome) bool { return o.State == Passed && o.Note != "" && o.Gap == "" }},
}

// section lists the outcomes sec keeps under its title, a failure with its
// reason and diff (the terminal is where a failure is read first), any
// other with its note or message on one line.
func section(outcomes []Outcome, sec detailSection, flags RerunFlags) string {
	var lines []string
	for _, o := range outcomes {
		if !sec.keep(o) {
			continue
		}
		if o.State == Failed {
			line := "  " + o.Name() + "\n" + FailureBlock(o, "      ", flags)
			if o.Diagnostics != "" {
				line += "      diagnostics: " + o.Diagnostics + "\n"
			}
			lines = append(lines, strings.TrimSuffix(line, "\n"))
			continue
		}
		line := "  " + o.Name()
		msg := textline.Summary(o.Message, " …")
		if o.Note != "" {
			msg = o.Note
		}
		if msg != "" {
			line += ": " + msg
		}
		if o.Diagnostics != "" {
			line += "\n      diagnostics: " + o.Diagnostics
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("\n%s (%d):\n%s\n", sec.title, len(lines), strings.Join(lines, "\n"))
}

// measured lists the figures cases measured, whatever their state.
func measured(b *strings.Builder, outcomes []Outcome) {
	var lines []string
	for _, o := range outcomes {
		for _, m := range o.Measurements {
			lines = append(lines, "  "+o.Name()+": "+m)
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(b, "\nmeasured (%d):\n%s\n", len(lines), strings.Join(lines, "\n"))
	}
}

// skips groups skipped cases by reason: a cell a provider cannot offer
// skips many cases for one reason, worth reading once.
func skips(b *strings.Builder, outcomes []Outcome) {
	var reasons []string
	byReason := map[string][]string{}
	for _, o := range outcomes {
		if o.State != "skipped" {
			continue
		}
		r := textline.Summary(o.Message, " …")
		if _, seen := byReason[r]; !seen {
			reasons = append(reasons, r)
		}
		byReason[r] = append(byReason[r], o.Name())
	}
	total := 0
	for _, r := range reasons {
		total += len(byReason[r])
	}
	if total == 0 {
		return
	}
	fmt.Fprintf(b, "\nskipped (%d):\n", total)
	for _, r := range reasons {
		fmt.Fprintf(b, "  %s (%d):\n", r, len(byReason[r]))
		for _, name := range byReason[r] {
			fmt.Fprintf(b, "    %s\n", name)
		}
	}
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

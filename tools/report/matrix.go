package report

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
)

// counts of one suite in one cell.
type counts struct{ passed, failed, skipped int }

func (c counts) String() string {
	if c == (counts{}) {
		return "-"
	}
	s := fmt.Sprintf("%d/%d", c.passed, c.passed+c.failed)
	if c.failed > 0 {
		s += fmt.Sprintf(" FAIL %d", c.failed)
	}
	if c.skipped > 0 {
		s += fmt.Sprintf(" (skip %d)", c.skipped)
	}
	return s
}

// Matrix renders suites × cells as "passed/run", failures and skips apart,
// and a total line a CI log can be grepped for.
func Matrix(outcomes []Outcome, cellOrder []string) string {
	var suites, cells, targets []string
	grid := map[[2]string]*counts{}
	total := counts{}
	for _, o := range outcomes {
		if !slices.Contains(suites, o.Suite) {
			suites = append(suites, o.Suite)
		}
		if !slices.Contains(cells, o.Column()) {
			cells = append(cells, o.Column())
		}
		if !slices.Contains(targets, o.Target) {
			targets = append(targets, o.Target)
		}
		k := [2]string{o.Suite, o.Column()}
		if grid[k] == nil {
			grid[k] = &counts{}
		}
		for _, c := range []*counts{grid[k], &total} {
			switch o.State {
			case "passed":
				c.passed++
			case "failed":
				c.failed++
			default:
				c.skipped++
			}
		}
	}
	// Columns go by target in run order, then by cell in cells.yaml order.
	rank := func(col string) int {
		target, cell, ok := strings.Cut(col, "/")
		if !ok {
			target, cell = "", col
		}
		return slices.Index(targets, target)*1000 + slices.Index(cellOrder, cell)
	}
	slices.SortStableFunc(cells, func(a, b string) int { return rank(a) - rank(b) })
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "suite \\ cell\t%s\n", strings.Join(cells, "\t"))
	for _, s := range suites {
		row := []string{s}
		for _, c := range cells {
			cnt := counts{}
			if g := grid[[2]string{s, c}]; g != nil {
				cnt = *g
			}
			row = append(row, cnt.String())
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%d passed, %d failed, %d skipped\n", total.passed, total.failed, total.skipped)
	return b.String()
}

// Details lists every failure (with its diagnostics file) and every skip
// (with its reason), contested cases and known upstream defects apart.
func Details(outcomes []Outcome) string {
	var b strings.Builder
	section := func(title string, keep func(Outcome) bool) {
		var lines []string
		for _, o := range outcomes {
			if keep(o) {
				line := "  " + o.Name()
				msg := firstLine(o.Message)
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
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n%s (%d):\n%s\n", title, len(lines), strings.Join(lines, "\n"))
		}
	}
	section("FAILED", func(o Outcome) bool { return o.State == "failed" && !o.Contested && !o.Known })
	section("FAILED, contested reading of the KEP", func(o Outcome) bool { return o.State == "failed" && o.Contested })
	section("FAILED, documents a known upstream defect", func(o Outcome) bool { return o.State == "failed" && o.Known && !o.Contested })
	// Information, not a verdict: a newer Kubernetes may close a gap.
	section("upstream gap closed in this cluster (information)", func(o Outcome) bool { return o.State == "passed" && o.Gap == "closed" })
	section("upstream gap present in this cluster (information)", func(o Outcome) bool { return o.State == "passed" && o.Gap == "present" })
	section("passed, contested reading of the KEP", func(o Outcome) bool { return o.State == "passed" && o.Contested && o.Gap == "" })
	section("passed, documents a known upstream defect", func(o Outcome) bool { return o.State == "passed" && o.Known && o.Gap == "" })
	section("passed, with the accepted outcome noted", func(o Outcome) bool { return o.State == "passed" && o.Note != "" && o.Gap == "" })
	measured(&b, outcomes)
	skips(&b, outcomes)
	return b.String()
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
		r := firstLine(o.Message)
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

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/draconform/draconform/tools/internal/textline"
)

// HTML writes report.html: one self-contained page (no network, no
// script). It says first what a reviewer asks first: the verdict of each
// claim and of the run and, on a failing run, what failed and why; then
// the facts of the run (id, date, version, command, duration, golden
// result), a matrix per implementation linking each failing cell to its
// failures, a timeline of the run, each failure in full, the skips apart
// by whether the case does not apply or the provider lacks something,
// and what each cell ran on. Paths are shown relative to outDir (the run's
// output folder, which holds TimingsFile) or the checkout, and no
// credential is shown.
func HTML(w io.Writer, outcomes []Outcome, run Run, outDir string) error {
	s := newScrubber(outDir)
	p := htmlData(outcomes, run, s)
	p.Timeline = timelineOf(readTimings(filepath.Join(outDir, TimingsFile)), outcomes)
	return page.Execute(w, p)
}

// htmlPage is what the page's template reads.
type htmlPage struct {
	Title                   string
	Headline                htmlHeadline
	Passed, Failed, Skipped int
	Verdicts                []htmlVerdict
	// Blocking and Informing are the first failures of each kind, of
	// BlockingCount and InformingCount, More* the rest: a run whose
	// cluster did not start fails every case of it alike.
	Blocking, Informing           []htmlBrief
	BlockingCount, InformingCount int
	MoreBlocking, MoreInforming   int
	Facts                         []htmlFact
	Tables                        []htmlTable
	Timeline                      *htmlTimeline
	Failures                      []htmlFailure
	NotApply, Lacks               []htmlSkip
	Header                        string
}

type htmlTable struct {
	Target string
	Cells  []string
	Rows   []htmlRow
}

type htmlRow struct {
	Suite string
	Cells []htmlCell
}

type htmlCell struct {
	Text  string
	Class string // pass, fail, inform, lack, na, none
	Title string
	Link  string // the anchor of the cell's first failure
}

type htmlFailure struct {
	Outcome
	Anchor, Standing, Rerun string
	// Message and Diagnostics shadow the outcome's, scrubbed; Diagnostics
	// is relative to the output folder, where the page lies.
	Message, Diagnostics, DiagnosticsText string
}

type htmlSkip struct {
	Reason string
	Names  []string
}

type htmlFact struct{ Name, Value string }

// htmlData builds the page from the outcomes, every text scrubbed.
func htmlData(outcomes []Outcome, run Run, s scrubber) htmlPage {
	p := htmlPage{Verdicts: verdictLines(run.Verdicts), Header: s.Text(run.Header)}
	anchors := map[string]string{} // target/suite/cell: its first failure
	for _, o := range outcomes {
		switch o.State {
		case Failed:
			f := failureOf(o, len(p.Failures), s, run.Rerun)
			if _, ok := anchors[cellKey(o)]; !ok {
				anchors[cellKey(o)] = f.Anchor
			}
			p.Failures = append(p.Failures, f)
			brief := htmlBrief{Anchor: f.Anchor, Name: o.Name(), Standing: f.Standing, Rerun: f.Rerun, Lines: FailureDetail(f.Message, 5)}
			if f.Standing == "" {
				p.Blocking = append(p.Blocking, brief)
			} else {
				p.Informing = append(p.Informing, brief)
			}
		case Skipped:
			r := s.Text(textline.Summary(o.Message, " …"))
			if o.Inapplicable {
				p.NotApply = addSkip(p.NotApply, r, o.Name())
			} else {
				p.Lacks = addSkip(p.Lacks, r, o.Name())
			}
		}
	}
	var sum counts
	for _, g := range gridsOf(outcomes, run.CellOrder) {
		sum.merge(g.sum)
		p.Tables = append(p.Tables, htmlTableOf(g, outcomes, anchors))
	}
	p.Passed, p.Failed, p.Skipped = sum.passed, sum.failed, sum.skipped
	p.Headline = headlineOf(run, sum.failed, len(p.Blocking), len(p.Informing))
	p.BlockingCount, p.InformingCount = len(p.Blocking), len(p.Informing)
	p.Blocking, p.MoreBlocking = firstBriefs(p.Blocking)
	p.Informing, p.MoreInforming = firstBriefs(p.Informing)
	p.Title = p.Headline.Verdict + " · run " + strings.ToLower(p.Headline.Run) + " · draconform"
	if run.About.RunID != "" {
		p.Title += " " + run.About.RunID
	}
	p.Facts = factsOf(run.About, s)
	return p
}

// briefsFirst is how many failures of a kind the first block shows.
const briefsFirst = 3

func firstBriefs(b []htmlBrief) ([]htmlBrief, int) {
	if len(b) <= briefsFirst {
		return b, 0
	}
	return b[:briefsFirst], len(b) - briefsFirst
}

func cellKey(o Outcome) string { return o.Target + "\x00" + o.Suite + "\x00" + o.Cell }

func failureOf(o Outcome, i int, s scrubber, flags RerunFlags) htmlFailure {
	f := htmlFailure{Outcome: o, Anchor: fmt.Sprintf("failure-%d", i+1), Standing: Standing(o), Rerun: s.Text(RerunCommand(o, flags)), Message: s.Text(FailureText(o))}
	if o.Diagnostics != "" {
		f.Diagnostics = s.Text(o.Diagnostics)
		if data, err := os.ReadFile(o.Diagnostics); err == nil {
			f.DiagnosticsText = s.Text(string(data))
		}
	}
	return f
}

func addSkip(skips []htmlSkip, reason, name string) []htmlSkip {
	for i := range skips {
		if skips[i].Reason == reason {
			skips[i].Names = append(skips[i].Names, name)
			return skips
		}
	}
	return append(skips, htmlSkip{Reason: reason, Names: []string{name}})
}

// htmlTableOf is one implementation's matrix. A cell's colour says the
// worst of it: a blocking failure, an informing one, a pass, a skip for a
// lack the provider could remedy, or only cases that do not apply there.
func htmlTableOf(g grid, outcomes []Outcome, anchors map[string]string) htmlTable {
	lacks, informing := map[string]int{}, map[string]int{}
	for _, o := range outcomes {
		switch {
		case o.Target != g.target:
		case o.State == Skipped && !o.Inapplicable:
			lacks[cellKey(o)]++
		case o.State == Failed && Standing(o) != "":
			informing[cellKey(o)]++
		}
	}
	t := htmlTable{Target: g.target, Cells: g.cells}
	for _, s := range g.suites {
		row := htmlRow{Suite: s}
		for _, c := range g.cells {
			cell := htmlCell{Text: "-", Class: "none"}
			key := cellKey(Outcome{Target: g.target, Suite: s, Cell: c})
			if n := g.at(s, c); n != (counts{}) {
				cell.Text = n.String()
				cell.Title = fmt.Sprintf("%s in %s: %d passed, %d failed (%d informing), %d skipped (%d for a lack, %d not applying)",
					s, c, n.passed, n.failed, informing[key], n.skipped, lacks[key], n.skipped-lacks[key])
				cell.Class = cellClass(n, informing[key], lacks[key])
				cell.Link = anchors[key]
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func cellClass(n counts, informing, lacks int) string {
	switch {
	case n.failed > informing:
		return "fail"
	case n.failed > 0:
		return "inform"
	case lacks > 0:
		return "lack"
	case n.passed > 0:
		return "pass"
	}
	return "na"
}

// caseClass is a case's colour on the timeline, as the matrix's.
func caseClass(o Outcome) string {
	switch {
	case o.State == Failed && Standing(o) != "":
		return "inform"
	case o.State == Failed:
		return "fail"
	case o.State == Skipped && o.Inapplicable:
		return "na"
	case o.State == Skipped:
		return "lack"
	}
	return "pass"
}

func stateWord(o Outcome) string {
	switch caseClass(o) {
	case "inform":
		return "failed (informing)"
	case "na":
		return "does not apply"
	case "lack":
		return "skipped for a lack"
	}
	return string(o.State)
}

func verdictClass(s VerdictState) string {
	switch s {
	case Conformant:
		return "pass"
	case NotConformant:
		return "fail"
	}
	return "na"
}

package report

import (
	"fmt"
	"html/template"
	"io"
	"os"
	"strings"

	"github.com/draconform/draconform/tools/internal/textline"
)

// HTML writes report.html: one self-contained page (no network, no
// script) with the verdicts, a matrix per implementation as coloured cells,
// each failure with its message and diagnostics, the skips by reason, and
// what each cell ran on (header).
func HTML(w io.Writer, outcomes []Outcome, cellOrder []string, header string, verdicts []Verdict) error {
	return page.Execute(w, htmlData(outcomes, cellOrder, header, verdicts))
}

type htmlPage struct {
	Passed, Failed, Skipped int
	Verdicts                []Verdict
	Tables                  []htmlTable
	Failures                []htmlFailure
	Skips                   []htmlSkip
	Header                  string
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
	Class string // pass, fail, skip, none
	Title string
}

type htmlFailure struct {
	Outcome
	DiagnosticsText string
}

type htmlSkip struct {
	Reason string
	Names  []string
}

func htmlData(outcomes []Outcome, cellOrder []string, header string, verdicts []Verdict) htmlPage {
	p := htmlPage{Verdicts: verdicts, Header: header}
	var sum counts
	for _, g := range gridsOf(outcomes, cellOrder) {
		sum.merge(g.sum)
		p.Tables = append(p.Tables, htmlTableOf(g))
	}
	p.Passed, p.Failed, p.Skipped = sum.passed, sum.failed, sum.skipped
	byReason := map[string]int{}
	for _, o := range outcomes {
		switch o.State {
		case Failed:
			f := htmlFailure{Outcome: o}
			if o.Diagnostics != "" {
				if data, err := os.ReadFile(o.Diagnostics); err == nil {
					f.DiagnosticsText = string(data)
				}
			}
			p.Failures = append(p.Failures, f)
		case Skipped:
			r := textline.Summary(o.Message, " …")
			i, ok := byReason[r]
			if !ok {
				i = len(p.Skips)
				byReason[r] = i
				p.Skips = append(p.Skips, htmlSkip{Reason: r})
			}
			p.Skips[i].Names = append(p.Skips[i].Names, o.Name())
		}
	}
	return p
}

func htmlTableOf(g grid) htmlTable {
	t := htmlTable{Target: g.target, Cells: g.cells}
	for _, s := range g.suites {
		row := htmlRow{Suite: s}
		for _, c := range g.cells {
			cell := htmlCell{Text: "-", Class: "none"}
			if n := g.at(s, c); n != (counts{}) {
				cell.Text = n.String()
				cell.Title = fmt.Sprintf("%s in %s: %d passed, %d failed, %d skipped", s, c, n.passed, n.failed, n.skipped)
				switch {
				case n.failed > 0:
					cell.Class = "fail"
				case n.passed > 0:
					cell.Class = "pass"
				default:
					cell.Class = "skip"
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func verdictClass(s VerdictState) string {
	switch s {
	case Conformant:
		return "pass"
	case NotConformant:
		return "fail"
	}
	return "skip"
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"verdictClass": verdictClass,
	"upper":        func(s VerdictState) string { return strings.ToUpper(string(s)) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>draconform report</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1f2328; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
td.pass { background: #2da44e; color: #fff; } td.fail { background: #cf222e; color: #fff; font-weight: bold; }
td.skip { background: #d4a72c; color: #000; } td.none { color: #8c959f; }
.verdict { padding: 6px 10px; margin: 4px 0; border-radius: 4px; }
.verdict.pass { background: #2da44e; color: #fff; } .verdict.fail { background: #cf222e; color: #fff; }
.verdict.skip { background: #eaeef2; color: #1f2328; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; font-size: 12px; }
summary { cursor: pointer; }
</style></head><body>
<h1>draconform: {{.Passed}} passed, {{.Failed}} failed, {{.Skipped}} skipped</h1>
<h2>Verdicts</h2>
{{range .Verdicts}}<div class="verdict {{verdictClass .State}}" id="verdict-{{.Claim}}-{{.Target}}"><b>{{upper .State}}</b> {{.Claim}} on {{.Target}}: {{.Title}}. {{.Reason}}{{if .Blocking}}<ul>{{range .Blocking}}<li>{{.}}</li>{{end}}</ul>{{end}}</div>
{{else}}<p>No claims were judged.</p>{{end}}
<h2>Matrix</h2>
{{range .Tables}}<h3>{{.Target}}</h3>
<table><tr><th>suite</th>{{range .Cells}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.Suite}}</th>{{range .Cells}}<td class="{{.Class}}" title="{{.Title}}">{{.Text}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
{{if .Failures}}<h2>Failures ({{len .Failures}})</h2>
{{range .Failures}}<details open><summary><b>{{.Name}}</b></summary><pre>{{.Message}}</pre>
{{if .DiagnosticsText}}<details><summary>diagnostics ({{.Diagnostics}})</summary><pre>{{.DiagnosticsText}}</pre></details>{{end}}</details>
{{end}}{{end}}
{{if .Skips}}<h2>Skipped, by reason</h2>
{{range .Skips}}<details><summary>{{.Reason}} ({{len .Names}})</summary><ul>{{range .Names}}<li>{{.}}</li>{{end}}</ul></details>
{{end}}{{end}}
<h2>What each cell ran on</h2>
<pre>{{.Header}}</pre>
</body></html>
`))

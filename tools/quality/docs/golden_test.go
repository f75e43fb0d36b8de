package docs

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/report"
)

func TestGoldenSummary(t *testing.T) {
	g := report.Golden{
		"local a/x@on":     "skipped: needs nodes with the test driver",
		"local a/y@on":     "passed (gap present)",
		"local a/z@off":    "passed: " + report.CauseStartRefused,
		"prototype a/x@on": "passed",
		"prototype a/y@on": "failed",
		"remote a/x@on":    "skipped: needs nodes with the test driver",
		"remote a/y@on":    "passed (gap present)",
		"remote a/z@off":   "passed: " + report.CauseStartRefused,
	}
	got := GoldenSummary(g)
	for _, want := range []string{
		"| `local` | 2 | 0 | 1 | 1 passed: " + report.CauseStartRefused + "; 1 skipped: needs nodes with the test driver; 1 passed with an upstream gap present |",
		"| `prototype` | 1 | 1 | 0 |  |",
		// The same reasons again name the implementation that gave them.
		"| `remote` | 2 | 0 | 1 | as `local` |",
		"In all 8 outcomes: 5 passed, 1 failed, 2 skipped.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if _, err := SpliceGoldenSummary("no markers", got); err == nil {
		t.Error("a README without markers must be an error")
	}
	out, err := SpliceGoldenSummary("a\n"+goldenBegin+"old\n"+goldenEnd+"b\n", "new\n")
	if err != nil || out != "a\n"+goldenBegin+"new\n"+goldenEnd+"b\n" {
		t.Errorf("splice: %q, %v", out, err)
	}
}

func TestGoldenMatrixIsWhatAMatchingRunPrints(t *testing.T) {
	g := report.Golden{
		"local s/a@defaults":        "passed",
		"local s/b@capacity-on":     "skipped: the provider cannot run this cell",
		"prototype s/a@defaults":    "passed",
		"prototype s/b@capacity-on": "passed (gap present)",
		"kind s/a@defaults":         "failed",
	}
	got := GoldenMatrix(g, []string{"prototype", "local"}, []string{"defaults", "capacity-on"})
	want := "```\n" + report.Matrix([]report.Outcome{
		{ID: "s/a@defaults", Target: "prototype", Suite: "s", Cell: "defaults", State: report.Passed},
		{ID: "s/b@capacity-on", Target: "prototype", Suite: "s", Cell: "capacity-on", State: report.Passed},
		{ID: "s/a@defaults", Target: "local", Suite: "s", Cell: "defaults", State: report.Passed},
		{ID: "s/b@capacity-on", Target: "local", Suite: "s", Cell: "capacity-on", State: report.Skipped},
	}, []string{"defaults", "capacity-on"}) + "```\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(got, "prototype: 2 passed, 0 failed, 0 skipped") || !strings.Contains(got, "local: 1 passed, 0 failed, 1 skipped") || strings.Contains(got, "kind") {
		t.Errorf("matrix:\n%s", got)
	}
}

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/report"
)

// verdictsPage shows, as a sample, the verdicts a complete run of both
// embedded implementations prints. Only such a run can say what they are,
// so the page is held to this test's run instead of to a generator.
var verdictsPage = filepath.Join("..", "..", "..", "docs", "verdicts.md")

// sampleBegin marks the sample's fenced block on the page.
const sampleBegin = "<!-- verdicts of a complete run of local and prototype: checked by tools/runner/e2e; do not edit by hand -->\n```\n"

// checkVerdictSample fails when a complete run of local and prototype
// prints other verdicts than the page's sample.
func checkVerdictSample(t *testing.T, out string, complete bool) {
	t.Helper()
	if !complete || *provider != "local,prototype" {
		return
	}
	if problem, err := verdictSampleProblem(out, verdictsPage); err != nil {
		t.Error(err)
	} else if problem != "" {
		t.Error(problem)
	}
}

// verdictSampleProblem compares the verdicts a run wrote in out with the
// sample on page: "" when they agree, else what to change.
func verdictSampleProblem(out, page string) (string, error) {
	data, err := os.ReadFile(filepath.Join(out, report.VerdictsFile))
	if err != nil {
		return "", fmt.Errorf("verdicts of the run: %w", err)
	}
	var vs []report.Verdict
	if err := json.Unmarshal(data, &vs); err != nil {
		return "", fmt.Errorf("verdicts of the run: %w", err)
	}
	text, err := os.ReadFile(page)
	if err != nil {
		return "", fmt.Errorf("the verdicts page: %w", err)
	}
	got := report.VerdictLines(vs)
	want, ok := sample(string(text))
	switch {
	case !ok:
		return fmt.Sprintf("%s has no sample of verdicts after the marker %q", page, strings.TrimSpace(sampleBegin)), nil
	case want != got:
		return fmt.Sprintf("%s shows other verdicts than this complete run printed: replace its sample with\n%s\nthe page has\n%s", page, got, want), nil
	}
	return "", nil
}

// sample is the fenced block after the page's marker.
func sample(page string) (string, bool) {
	_, rest, ok := strings.Cut(page, sampleBegin)
	if !ok {
		return "", false
	}
	block, _, ok := strings.Cut(rest, "```\n")
	return block, ok
}

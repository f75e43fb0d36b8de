package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/report"
)

func TestVerdictSampleIsReadFromItsMarker(t *testing.T) {
	page := "intro\n" + sampleBegin + "verdicts:\n  CONFORMANT      a on b: all 3 required cases passed\n```\n\nafter\n"
	got, ok := sample(page)
	if !ok || got != "verdicts:\n  CONFORMANT      a on b: all 3 required cases passed\n" {
		t.Fatalf("sample = %q, %v", got, ok)
	}
	if _, ok := sample("no marker\n```\nverdicts:\n```\n"); ok {
		t.Fatal("a page without the marker has no sample")
	}
}

// The shipped page's sample agrees with verdicts that print as it does,
// and a run whose counts moved is told to replace it.
func TestVerdictSampleDisagreesWithAnotherRun(t *testing.T) {
	text, err := os.ReadFile(verdictsPage)
	if err != nil {
		t.Fatal(err)
	}
	shown, ok := sample(string(text))
	if !ok {
		t.Fatalf("%s has no sample", verdictsPage)
	}
	vs := parseSample(t, shown)
	out := t.TempDir()
	write := func(vs []report.Verdict) {
		data, err := json.Marshal(vs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, report.VerdictsFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(vs)
	if problem, err := verdictSampleProblem(out, verdictsPage); err != nil || problem != "" {
		t.Fatalf("the page's own verdicts: %q, %v", problem, err)
	}
	vs[len(vs)-1].Reason = "all 1 required cases passed"
	write(vs)
	if problem, _ := verdictSampleProblem(out, verdictsPage); !strings.Contains(problem, "replace its sample") {
		t.Fatalf("moved counts were not noticed: %q", problem)
	}
}

// parseSample reads back the verdicts VerdictLines printed.
func parseSample(t *testing.T, block string) []report.Verdict {
	t.Helper()
	var vs []report.Verdict
	for _, line := range strings.Split(strings.TrimSpace(block), "\n")[1:] {
		fields := strings.Fields(line)
		state := fields[0]
		if state == "NOT" {
			state, fields = fields[0]+" "+fields[1], fields[1:]
		}
		head, reason, _ := strings.Cut(strings.Join(fields[1:], " "), ": ")
		claim, target, _ := strings.Cut(head, " on ")
		vs = append(vs, report.Verdict{State: report.VerdictState(strings.ToLower(state)), Claim: claim, Target: target, Reason: reason})
	}
	return vs
}

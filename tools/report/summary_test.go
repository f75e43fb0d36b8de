package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// fullRunLines is the budget of a green full run in the terminal after the
// build (issue 41): progress and summary together.
const fullRunLines = 60

// The lines a parallel run prints around its summary: the run's line, the
// processes' line, a start and an end line per cell and implementation,
// the tally at the end, and the golden table's line.
func progressLines(cellRuns int) int { return 1 + 1 + 2*cellRuns + 1 + 1 }

// syntheticFullRun is shaped as the whole matrix is: 7 cells on 2
// implementations (14 cell runs, each with a header of 7 lines as the
// runner writes it), 14 suites, 240 outcomes of which 76 skipped, 38
// contested and 20 measured, and 8 verdicts.
func syntheticFullRun() ([]Outcome, Run) {
	cells := []string{"defaults", "consumable-capacity-off", "capacity-on", "capacity-apiserver-off", "capacity-scheduler-off", "capacity-on-consumable-off", "apiserver-upgraded-first"}
	var suites []string
	for i := range 14 {
		suites = append(suites, fmt.Sprintf("kep6406-suite-number-%02d", i))
	}
	var outcomes []Outcome
	var header strings.Builder
	for _, target := range []string{"local", "prototype"} {
		for _, c := range cells {
			fmt.Fprintf(&header, "%s/%s: local-v1.37.2/%s\n  the API server ...\n  facts ...\n", target, c, c)
			for _, comp := range []string{"etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager"} {
				fmt.Fprintf(&header, "  %s: /work/.cache/k8s/bin/%s (v1.37.2)\n", comp, comp)
			}
		}
		for i := range 120 {
			o := Outcome{ID: fmt.Sprintf("%s/case-%03d@%s", suites[i%14], i, cells[i%7]), Target: target, Suite: suites[i%14], Cell: cells[i%7], State: Passed}
			switch {
			case i < 38:
				o.State, o.Message, o.Inapplicable = Skipped, "the provider cannot run this cell", true
			case i < 57:
				o.Contested = true
			}
			if i >= 110 {
				o.Measurements = []string{"the scheduler bound the pod in 12ms"}
			}
			outcomes = append(outcomes, o)
		}
	}
	var verdicts []Verdict
	for _, target := range []string{"local", "prototype"} {
		for _, claim := range []string{"kep6406-gates-on", "kep6406-gate-transitions", "kep6406-partial-gates", "feature-absent-safe"} {
			verdicts = append(verdicts, Verdict{Claim: claim, Target: target, State: Conformant, Reason: "all 37 required cases passed"})
		}
	}
	return outcomes, Run{CellOrder: cells, Header: header.String(), Verdicts: verdicts}
}

func ginkgoReportOf(outcomes []Outcome) types.Report {
	r := types.Report{SuiteSucceeded: true, StartTime: time.Now()}
	for _, o := range outcomes {
		sp := types.SpecReport{LeafNodeType: types.NodeTypeIt, State: types.SpecStatePassed}
		k := Key{Target: o.Target, Suite: o.Suite, Case: strings.TrimPrefix(strings.SplitN(o.ID, "@", 2)[0], o.Suite+"/"), Cell: o.Cell, Contested: o.Contested}
		sp.ReportEntries = append(sp.ReportEntries, types.ReportEntry{Name: EntryKey, Value: types.WrapEntryValue(k)})
		if o.State == Skipped {
			sp.State = types.SpecStateSkipped
			sp.Failure.Message = o.Message
			sp.ReportEntries = append(sp.ReportEntries, types.ReportEntry{Name: EntryInapplicable, Value: types.WrapEntryValue("true")})
		}
		for _, m := range o.Measurements {
			sp.ReportEntries = append(sp.ReportEntries, types.ReportEntry{Name: EntryMeasurement, Value: types.WrapEntryValue(m)})
		}
		r.SpecReports = append(r.SpecReports, sp)
	}
	return r
}

// A green full run fits a screen: what WriteAll prints, with the progress
// lines around it, stays within the budget, and still says every count,
// the long lists counted, and every verdict.
func TestGreenFullRunFitsTheBudget(t *testing.T) {
	outcomes, run := syntheticFullRun()
	r := ginkgoReportOf(outcomes)
	if got := Outcomes(r); len(got) != 240 {
		t.Fatalf("the synthetic run has %d outcomes, want 240", len(got))
	}
	var w bytes.Buffer
	if err := WriteAll(r, t.TempDir(), &w, run); err != nil {
		t.Fatal(err)
	}
	printed := strings.Count(strings.TrimLeft(w.String(), "\n"), "\n")
	if total := printed + progressLines(14); total > fullRunLines {
		t.Errorf("a green full run prints %d lines (%d of summary, %d of progress), over the budget of %d:\n%s", total, printed, progressLines(14), fullRunLines, w.String())
	}
	for _, want := range []string{
		"164 passed, 0 failed, 76 skipped",
		"76 skips (76 inapplicable), 38 contested passes, 20 measurements",
		"CONFORMANT      feature-absent-safe on prototype",
	} {
		if !strings.Contains(strings.ReplaceAll(w.String(), "\n  ", " "), want) {
			t.Errorf("the summary lacks %q:\n%s", want, w.String())
		}
	}
	for _, not := range []string{"/work/.cache", "case-000"} {
		if strings.Contains(w.String(), not) {
			t.Errorf("the summary lists %q, which belongs in the report:\n%s", not, w.String())
		}
	}
}

// --verbose still prints everything: what each cell ran on, the matrix,
// every skip and measurement.
func TestVerboseRunPrintsEverything(t *testing.T) {
	outcomes, run := syntheticFullRun()
	run.Verbose = true
	var w bytes.Buffer
	if err := WriteAll(ginkgoReportOf(outcomes), t.TempDir(), &w, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/work/.cache/k8s/bin/etcd", "[7] apiserver-upgraded-first", "measured (20):", "skipped (76):", "case-000"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("the verbose text lacks %q", want)
		}
	}
}

// A failing run shows each failure whole in the summary: its reason and
// diff, and a rerun command that, for binaries from elsewhere, names them.
func TestSummaryShowsFailuresWithTheirRerun(t *testing.T) {
	outcomes := []Outcome{
		{ID: "s/a@on", Target: "local-bin", Suite: "s", Cell: "on", State: Failed, Message: "step 2 at s.yaml:9, pod p1 is scheduled:\nrequestName: differs\n  want: a\n  got:  b"},
		{ID: "s/b@on", Target: "local-bin", Suite: "s", Cell: "on", State: Passed},
		{ID: "s/c@on", Target: "local-bin", Suite: "s", Cell: "on", State: Skipped, Cause: CauseNotRun},
	}
	got := Summary(outcomes, Run{Rerun: RerunFlags{"local-bin": "--provider local --bin-dir /src/bin"}})
	want := "FAILED (1):\n  [local-bin] s/a@on\n      step 2 at s.yaml:9, pod p1 is scheduled:\n      requestName: differs\n        want: a\n        got:  b\n" +
		"      rerun: draconform run --provider local --bin-dir /src/bin --cells on --focus 's/a@on'\n"
	if !strings.Contains(got, want) {
		t.Errorf("summary lacks\n%s\ngot:\n%s", want, got)
	}
	if !strings.Contains(got, "1 not run (--fail-fast)") {
		t.Errorf("summary does not count the cases --fail-fast kept from running apart:\n%s", got)
	}
}

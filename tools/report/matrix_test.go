package report

import (
	"strings"
	"testing"
)

func TestMatrixAndDetails(t *testing.T) {
	outcomes := []Outcome{
		{ID: "a/x@on", Suite: "a", Cell: "on", State: "passed"},
		{ID: "a/y@on", Suite: "a", Cell: "on", State: "failed", Message: "step 2 at s.yaml:9, boom\nmore", Diagnostics: "/d/y.txt"},
		{ID: "a/z@off", Suite: "a", Cell: "off", State: "skipped", Message: "needs restart"},
		{ID: "b/w@off", Suite: "b", Cell: "off", State: "failed", Contested: true, Informing: true, Message: "reading 3"},
		// Contested on an enforced reading: it blocks, so it fails with
		// the others, not apart.
		{ID: "b/v@off", Suite: "b", Cell: "off", State: "failed", Contested: true, Message: "reading 4"},
	}
	m := Matrix(outcomes, []string{"off", "on"})
	for _, want := range []string{
		"cluster: 1 passed, 3 failed, 1 skipped\n  [1] off  [2] on\n",
		"  suite  [1]     [2]",
		"  a      0/0 s1  1/2 F1",
		"  b      0/2 F2  -",
		"1 passed, 3 failed, 1 skipped",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("matrix lacks %q:\n%s", want, m)
		}
	}
	d := Details(outcomes, nil)
	for _, want := range []string{
		"FAILED (2):\n  a/y@on\n      step 2 at s.yaml:9, boom\n      more\n      rerun: draconform run --cells on --focus 'a/y@on'\n      diagnostics: /d/y.txt\n  b/v@off\n      reading 4\n",
		"FAILED, informing only (an open reading of the KEP, never blocking) (1):\n  b/w@off\n      (informing: a contested reading of the KEP, never blocking)\n      reading 3\n",
		"skipped (1):\n  needs restart (1):\n    a/z@off",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("details lack %q:\n%s", want, d)
		}
	}
}

// Seven long cell names and two implementations still fit a terminal: no
// line is wider than MatrixWidth, and every count is shown.
func TestMatrixFitsATerminal(t *testing.T) {
	cells := []string{"defaults", "consumable-capacity-off", "capacity-on", "capacity-apiserver-off", "capacity-scheduler-off", "capacity-on-consumable-off", "apiserver-upgraded-first"}
	var outcomes []Outcome
	for _, target := range []string{"local", "prototype"} {
		for i, c := range cells {
			for n := 0; n <= i; n++ {
				st := Passed
				if n == 1 {
					st = Failed
				}
				if n == 2 {
					st = Skipped
				}
				outcomes = append(outcomes, Outcome{ID: "kep5004-class-migration/x@" + c, Target: target, Suite: "kep5004-class-migration", Cell: c, State: st})
			}
		}
	}
	m := Matrix(outcomes, cells)
	for _, line := range strings.Split(m, "\n") {
		if len([]rune(line)) > MatrixWidth {
			t.Errorf("line of %d columns: %q", len([]rune(line)), line)
		}
	}
	for _, want := range []string{"prototype: 17 passed, 6 failed, 5 skipped", "[7] apiserver-upgraded-first", "5/6 F1 s1"} {
		if !strings.Contains(m, want) {
			t.Errorf("matrix lacks %q:\n%s", want, m)
		}
	}
}

// A failure in the terminal shows why, with the want/got diff, says when
// it does not block, and gives the command that reruns it alone.
func TestFailuresShowTheirReasonAndRerun(t *testing.T) {
	diff := "step 2 at suites/kep6406-scheduling.yaml:348, pod p1 is scheduled:\n" +
		"status.extendedResourceClaimStatus.requestMappings[0].requestName: differs (want \"container-0-request-0\", got \"req-0\")\n" +
		"  want: container-0-request-0\n  got:  req-0"
	outcomes := []Outcome{
		{ID: "kep6406-scheduling/implicit-name@capacity-on", Target: "prototype-explicit-name-only", Suite: "kep6406-scheduling", Cell: "capacity-on", State: Failed, Message: diff},
		{ID: "kep6406-api/x.y@defaults", Target: "local", Suite: "kep6406-api", Cell: "defaults", State: Failed, Known: true, Informing: true, Message: "one line"},
		{ID: "s/long@on", Suite: "s", Cell: "on", State: Failed, Message: strings.Repeat("line\n", 20) + "last"},
	}
	d := Details(outcomes, nil)
	for _, want := range []string{
		"  [prototype-explicit-name-only] kep6406-scheduling/implicit-name@capacity-on\n      step 2 at suites/kep6406-scheduling.yaml:348, pod p1 is scheduled:\n" +
			"      status.extendedResourceClaimStatus.requestMappings[0].requestName: differs (want \"container-0-request-0\", got \"req-0\")\n" +
			"        want: container-0-request-0\n        got:  req-0\n" +
			"      rerun: draconform run --provider prototype-explicit-name-only --cells capacity-on --focus 'kep6406-scheduling/implicit-name@capacity-on'\n",
		"  [local] kep6406-api/x.y@defaults\n      (informing: a known upstream defect, never blocking)\n      one line\n      rerun: draconform run --provider local --cells defaults --focus 'kep6406-api/x\\.y@defaults'",
		"      line\n      … 14 more lines in the report\n      rerun:",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("details lack %q:\n%s", want, d)
		}
	}
}

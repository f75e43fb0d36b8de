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
		{ID: "b/w@off", Suite: "b", Cell: "off", State: "failed", Contested: true, Message: "reading 3"},
	}
	m := Matrix(outcomes, []string{"off", "on"})
	for _, want := range []string{
		"suite \\ cell  off           on",
		"a             0/0 (skip 1)  1/2 FAIL 1",
		"b             0/1 FAIL 1    -",
		"1 passed, 2 failed, 1 skipped",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("matrix lacks %q:\n%s", want, m)
		}
	}
	d := Details(outcomes)
	for _, want := range []string{
		"FAILED (1):\n  a/y@on: step 2 at s.yaml:9, boom …\n      diagnostics: /d/y.txt",
		"FAILED, contested reading of the KEP (1):\n  b/w@off: reading 3",
		"skipped (1):\n  needs restart (1):\n    a/z@off",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("details lack %q:\n%s", want, d)
		}
	}
}

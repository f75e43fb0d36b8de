package loader_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/draconform/draconform/tools/lang/loader"
)

// entry is a register entry at the given stance lines, otherwise complete.
func entry(id, stance string) string {
	return "- id: " + id + "\n  title: t\n  quote: q\n  observed: o\n  reading: r\n" + stance
}

// Every register entry says whether its cases block, and an open one says
// why: left out, a reading the suite requires would inform by omission.
func TestRegisterStanceProblems(t *testing.T) {
	register := "apiVersion: draconform.dev/v1alpha1\nkind: Register\nentries:\n" +
		entry("R1", "") + // line 4
		entry("R2", "  stance: enforsed\n") + // line 9
		entry("R3", "  stance: open\n") + // line 15
		entry("R4", "  stance: enforced\n  openBecause: x\n") + // line 21
		entry("R5", "  stance: open\n  openBecause: another reading is as good\n") // line 28: fine
	// A known issue without a gap would fail the release that fixes it.
	s := suite("- id: a\n  title: t\n  knownIssue: a defect\n  steps:\n  - create: {fixture: pod, name: p1}\n")
	sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "register.yaml": {Data: []byte(register)}, "s.yaml": {Data: []byte(s)}}
	ffs := fstest.MapFS{"pod.yaml": {Data: []byte(podFixture)}}
	_, err := loader.Load(sfs, ffs)
	if err == nil {
		t.Fatal("loaded a register without stances")
	}
	for _, want := range []string{
		`suites/register.yaml:4: register entry R1 has no stance`,
		`suites/register.yaml:9: register entry R2: stance "enforsed" is not enforced or open (did you mean enforced?)`,
		`suites/register.yaml:15: register entry R3 is open but has no openBecause`,
		`suites/register.yaml:21: register entry R4 is enforced but says openBecause`,
		`suites/s.yaml:6: case a: a known issue needs gap:, or a release that fixes it fails the case`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing problem %q in:\n%s", want, err)
		}
	}
	if strings.Contains(err.Error(), "R5") {
		t.Errorf("an open entry with its reason is refused:\n%s", err)
	}
}

package loader_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/draconform/draconform/steps"
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
	_, err := loader.Load(sfs, ffs, steps.Kinds())
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

// A blocking case matches facts, not words: one that matches a message's
// text must rest on an entry whose wording: says why, and an enforced entry
// must quote the KEP sentence that enforces it.
func TestBlockingTextMatchesNeedAWordingEntry(t *testing.T) {
	register := "apiVersion: draconform.dev/v1alpha1\nkind: Register\nentries:\n" +
		entry("R1", "  stance: enforced\n  enforcedBy: the KEP says so\n") +
		entry("R2", "  stance: enforced\n  enforcedBy: the KEP says so\n  wording: only text names it\n") +
		entry("R3", "  stance: enforced\n") + // line 16: no enforcedBy
		entry("R5", "  stance: open\n  openBecause: another reading is as good\n")
	write := func(id, contested, expect string) string {
		c := "- id: " + id + "\n  title: t\n"
		if contested != "" {
			c += "  contested: " + contested + "\n"
		}
		return c + "  steps:\n  - create: {fixture: pod, name: p1, expect: " + expect + "}\n"
	}
	s := suite(write("words", "", `{rejected: "is forbidden"}`) + // line 6
		write("words-entry-silent", "R1", `{warning: "unknown field"}`) + // line 12
		write("words-with-reason", "R2", `{rejected: "is forbidden"}`) +
		write("words-informing", "R5", `{rejected: "is forbidden"}`) +
		write("status", "", `{invalid: spec.containers}`) +
		write("any-refusal", "", `{refused: any}`) +
		write("no-such-reason", "", `{refused: Forbiden}`))
	sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "register.yaml": {Data: []byte(register)}, "s.yaml": {Data: []byte(s)}}
	ffs := fstest.MapFS{"pod.yaml": {Data: []byte(podFixture)}}
	_, err := loader.Load(sfs, ffs, steps.Kinds())
	if err == nil {
		t.Fatal("loaded blocking cases that match words with no entry saying why")
	}
	for _, want := range []string{
		`case words blocks its claims and matches the words of a message (rejected: "is forbidden"), but it rests on no register entry`,
		`case words-entry-silent blocks its claims and matches the words of a message (warning: "unknown field"), but its entry R1 has no wording: that says why`,
		`register entry R3 is enforced but quotes no KEP sentence that enforces it (enforcedBy:)`,
		`expect.refused: "Forbiden" is no API status reason`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing problem %q in:\n%s", want, err)
		}
	}
	for _, fine := range []string{"words-with-reason", "words-informing", "case status", "any-refusal"} {
		if strings.Contains(err.Error(), fine) {
			t.Errorf("%s is refused:\n%s", fine, err)
		}
	}
}

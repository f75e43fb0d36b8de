package docs

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
)

// An entry shows its stance on one line (an open reason's first sentence,
// never the words that enforce a reading) and its cases on one line,
// grouped by suite, a case that pins a gap marked, and the proof not among
// them after; words an earlier entry quotes are named by that entry, not
// repeated.
func TestRegisterEntryIsACompactBlock(t *testing.T) {
	b := &loader.Bundle{
		Suites: []*spec.Suite{
			{Name: "s", Cases: []spec.Case{{ID: "b", Contested: "R1"}, {ID: "a", Contested: "R1", Gap: &spec.Gap{}}}},
			{Name: "t", Cases: []spec.Case{{ID: "c", Contested: "R1"}, {ID: "d", Contested: "R2"}}},
		},
		Register: []*spec.RegisterEntry{
			{ID: "R1", Title: "One", Section: "API", Quote: "the  words", Stance: spec.StanceEnforced, EnforcedBy: "the words",
				Reading: "read so", Proof: []string{"s/a", "u/z"}},
			{ID: "R2", Title: "Two", Quote: "other", Stance: spec.StanceEnforced, EnforcedBy: "elsewhere", Reading: "read"},
			{ID: "R3", Title: "Three", Quote: "q", Stance: spec.StanceOpen, OpenBecause: "Two  readings (see \"x.\") differ. Both hold, e.g. Here.", Reading: "either"},
			{ID: "R4", Title: "Four", Quote: "the words", Stance: spec.StanceEnforced, EnforcedBy: "x", Reading: "again"},
		},
	}
	got := Register(b)
	for _, want := range []string{
		"\n## R1 (API)\n\n**KEP:** “the  words”\n\n**Enforced reading:** read so\n\n" +
			"**Cases:** `s`: a (gap), b; `t`: c; also shown by `u/z`\n",
		"\n## R2\n\n**KEP:** “other”\n\n**Enforced reading:** read\n\n**Cases:** `t`: d\n",
		"\n## R4\n\n**KEP:** as R1.\n\n**Enforced reading:** again\n\n",
		"\n## R3\n\n**KEP:** “q”\n\n**Open:** Two readings (see \"x.\") differ. **Reading:** either\n\n**Cases:** none yet\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("register lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"elsewhere", "Both hold", "One"} {
		if strings.Contains(got, not) {
			t.Errorf("register shows %q, which register.yaml keeps:\n%s", not, got)
		}
	}
}

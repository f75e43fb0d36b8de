package plan_test

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
)

// Every shipped claim rests on cases, and each case's restart and cell
// match the claim's selection.
func TestShippedClaimsRestOnCases(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	cases := plan.Expand(b, plan.Filter{})
	serial := map[string]bool{}
	for _, c := range cases {
		serial[c.ID] = c.Serial
	}
	claims := plan.Claims(b, cases)
	if len(claims) != len(b.Claims) || len(claims) == 0 {
		t.Fatalf("%d claims resolved of %d", len(claims), len(b.Claims))
	}
	for i, c := range claims {
		spec := b.Claims[i]
		if len(c.Cases) == 0 {
			t.Errorf("claim %s rests on no case", c.Name)
		}
		for _, cc := range c.Cases {
			if !strings.HasSuffix(cc.ID, "@"+cc.Cell) {
				t.Errorf("claim %s: case %s has cell %s", c.Name, cc.ID, cc.Cell)
			}
			if (spec.Restart == "only" && !serial[cc.ID]) || (spec.Restart == "exclude" && serial[cc.ID]) {
				t.Errorf("claim %s (restart %s) holds %s, serial %t", c.Name, spec.Restart, cc.ID, serial[cc.ID])
			}
		}
		t.Logf("claim %s: %d cases", c.Name, len(c.Cases))
	}
}

// Only cases resting on an open register entry inform: a case on an
// enforced reading, or one documenting a known defect, blocks its claims.
func TestOnlyOpenReadingsInform(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]bool{}
	for _, e := range b.Register {
		open[e.ID] = e.Open()
	}
	informing, known := 0, 0
	for _, c := range plan.Expand(b, plan.Filter{}) {
		want := c.Case.Contested != "" && open[c.Case.Contested]
		if (c.Informs != "") != want || c.Key().Informing != want {
			t.Errorf("%s (contested %q, known issue %t) informs %q", c.ID, c.Case.Contested, c.Case.KnownIssues != "", c.Informs)
		}
		if want {
			informing++
		}
		if c.Case.KnownIssues != "" && !want {
			known++
		}
	}
	if informing == 0 || known == 0 {
		t.Errorf("%d informing cases and %d blocking known-issue cases: the shipped suites have both", informing, known)
	}
}

// Lint names a claim the suites give fewer blocking cases than its floor.
func TestClaimBelowItsMinimumIsAProblem(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if probs := plan.ClaimProblems(b); len(probs) > 0 {
		t.Fatalf("the shipped claims: %v", probs)
	}
	minCases := b.Claims[0].MinCases
	b.Claims[0].MinCases = 1000
	probs := plan.ClaimProblems(b)
	if len(probs) != 1 || !strings.Contains(probs[0], "suites/claims.yaml:") || !strings.Contains(probs[0], "fewer than its minCases 1000") {
		t.Errorf("problems %q", probs)
	}
	// One case more, or one fewer, than minCases + mayNotApply says.
	for _, delta := range []int{-1, 1} {
		b.Claims[0].MinCases = minCases
		b.Claims[0].MayNotApply += delta
		probs = plan.ClaimProblems(b)
		if len(probs) != 1 || !strings.Contains(probs[0], "a case was added, removed or made to inform") {
			t.Errorf("mayNotApply off by %d: problems %q", delta, probs)
		}
		b.Claims[0].MayNotApply -= delta
	}
}

package plan_test

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/loader"
	"github.com/draconform/draconform/tools/plan"
)

// Every shipped claim rests on cases, and each case's restart and cell
// match the claim's selection.
func TestShippedClaimsRestOnCases(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS)
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

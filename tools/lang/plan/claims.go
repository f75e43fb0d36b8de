package plan

import (
	"fmt"
	"slices"

	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// Claims resolves the bundle's certification claims against the planned
// cases: each claim's cases, and which of them inform only (those resting
// on an open register entry). A claim whose cases the plan does not hold
// has none, and its verdict says so.
func Claims(b *loader.Bundle, cases []Case) []report.Claim {
	var out []report.Claim
	for _, sc := range b.Claims {
		c := report.Claim{Name: sc.Name, Title: sc.Title, Field: sc.Field, MinCases: sc.MinCases}
		for _, pc := range cases {
			if !inClaim(sc, pc) {
				continue
			}
			k := pc.Key()
			c.Cases = append(c.Cases, report.ClaimCase{ID: k.ID(), Cell: k.Cell, Informing: k.Informing})
		}
		out = append(out, c)
	}
	return out
}

func inClaim(c *spec.Claim, pc Case) bool {
	if !slices.Contains(c.Cells, pc.Cell.Name) {
		return false
	}
	if len(c.Suites) > 0 && !slices.Contains(c.Suites, pc.Suite.Name) {
		return false
	}
	switch c.Restart {
	case spec.RestartExclude:
		return !pc.Serial
	case spec.RestartOnly:
		return pc.Serial
	}
	return true
}

// ClaimProblems lists each claim that the suites give fewer blocking cases
// than its minCases, or other than minCases + mayNotApply: a case removed,
// or made to inform, weakened the claim, and one added is not counted on
// until its claim says so; lint says so instead of letting either pass.
func ClaimProblems(b *loader.Bundle) []string {
	var out []string
	claims := Claims(b, Expand(b, Filter{}))
	for i, c := range claims {
		blocking := 0
		for _, cc := range c.Cases {
			if !cc.Informing {
				blocking++
			}
		}
		sc := b.Claims[i]
		switch want := c.MinCases + sc.MayNotApply; {
		case blocking < c.MinCases:
			out = append(out, fmt.Sprintf("%s:%d: claim %s rests on %d blocking cases, fewer than its minCases %d: a case was removed or made to inform; lower minCases only on purpose", sc.Pos.File, sc.Pos.Line, c.Name, blocking, c.MinCases))
		case blocking != want:
			out = append(out, fmt.Sprintf("%s:%d: claim %s rests on %d blocking cases, where minCases %d and mayNotApply %d say %d: a case was added, removed or made to inform; say so in minCases (all must apply) or mayNotApply (some may not)", sc.Pos.File, sc.Pos.Line, c.Name, blocking, c.MinCases, sc.MayNotApply, want))
		}
	}
	return out
}

package plan

import (
	"slices"

	"github.com/draconform/draconform/tools/loader"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/spec"
)

// Claims resolves the bundle's certification claims against the planned
// cases: each claim's cases, and which of them inform only (contested or
// known-issue). A claim whose cases the plan does not hold has none, and
// its verdict says so.
func Claims(b *loader.Bundle, cases []Case) []report.Claim {
	var out []report.Claim
	for _, sc := range b.Claims {
		c := report.Claim{Name: sc.Name, Title: sc.Title, Field: sc.Field}
		for _, pc := range cases {
			if !inClaim(sc, pc) {
				continue
			}
			k := pc.Key()
			c.Cases = append(c.Cases, report.ClaimCase{ID: k.ID(), Cell: k.Cell, Informing: k.Contested || k.Known})
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

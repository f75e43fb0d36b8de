package loader

import (
	"slices"

	"github.com/draconform/draconform/tools/lang/spec"
)

var fieldStates = []string{"kept", "dropped", "unknown"}

// validateClaims checks each claim names what exists and rests on at least
// one case.
func validateClaims(b *Bundle, suites map[string]spec.Pos, probs *Problems) {
	names := map[string]spec.Pos{}
	for _, c := range b.Claims {
		at := func(hint, format string, args ...any) { probs.add(c.Pos.File, c.Pos.Line, hint, format, args...) }
		if !dnsLabel.MatchString(c.Name) {
			at("a DNS label, e.g. kep6406-gates-on", "claim name %q is not a DNS label", c.Name)
		}
		if prev, dup := names[c.Name]; dup {
			at("", "claim %q is already defined at %s:%d", c.Name, prev.File, prev.Line)
		}
		names[c.Name] = c.Pos
		if c.Title == "" {
			at("say the claim as a sentence", "claim %s has no title", c.Name)
		}
		if len(c.Cells) == 0 {
			at("the cells whose cases the claim rests on", "claim %s names no cell", c.Name)
		}
		for i, cell := range c.Cells {
			if _, ok := b.Cells[cell]; !ok {
				probs.add(c.Pos.File, b.lineOf(&c.Cells[i], c.Pos.Line), probs.closest(cell, b.CellOrder), "claim %s: unknown cell %q", c.Name, cell)
			}
		}
		for i, s := range c.Suites {
			if _, ok := suites[s]; !ok {
				probs.add(c.Pos.File, b.lineOf(&c.Suites[i], c.Pos.Line), closestKey(probs, s, suites), "claim %s: unknown suite %q", c.Name, s)
			}
		}
		switch c.Restart {
		case "", spec.RestartInclude, spec.RestartExclude, spec.RestartOnly:
		default:
			at("include, exclude or only", "claim %s: restart is %q", c.Name, c.Restart)
		}
		if c.MinCases < 1 {
			at("the least number of its blocking cases that must apply for it to stand, e.g. the number it has", "claim %s: minCases is %d; a claim must not stand on no case", c.Name, c.MinCases)
		}
		for _, f := range c.Field {
			if !slices.Contains(fieldStates, f) {
				at(probs.closest(f, fieldStates), "claim %s: field state %q is not kept, dropped or unknown", c.Name, f)
			}
		}
	}
}

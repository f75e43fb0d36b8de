package loader

import (
	"maps"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/lang/spec"
)

// checkExpansion refuses suite and case variables that expand past
// spec.MaxExpandedNodes: a variable repeating another, or an alias its
// anchor, multiplies at each level, and a suite of 1 MiB could otherwise
// make a case instance of 10^10 nodes when it runs. Counted, not expanded,
// so that the check costs time in proportion to the file.
func checkExpansion(s *spec.Suite, probs *Problems) {
	memo := map[*yaml.Node]int64{}
	outer := func(name string) (int64, bool) {
		// Builtins and the profile's variables are small: the profile's
		// lists and maps are bounded by its own file.
		return 1, slices.Contains(spec.Builtins, name) || slices.Contains(spec.ProfileVarNames, name)
	}
	suite := map[string]int64{}
	for _, k := range slices.Sorted(maps.Keys(s.Vars)) {
		v := s.Vars[k]
		suite[k] = spec.ExpandedNodes(&v, outer, memo)
		if suite[k] > spec.MaxExpandedNodes {
			probs.add(s.Pos.File, v.Line, "a variable that repeats another multiplies it: use each once", "suite %s: variable %s expands to more than %d YAML nodes", s.Name, k, spec.MaxExpandedNodes)
		}
	}
	inSuite := func(name string) (int64, bool) {
		if n, ok := suite[name]; ok {
			return n, true
		}
		return outer(name)
	}
	for i := range s.Cases {
		c := &s.Cases[i]
		for _, k := range slices.Sorted(maps.Keys(c.Vars)) {
			v := c.Vars[k]
			if spec.ExpandedNodes(&v, inSuite, memo) > spec.MaxExpandedNodes {
				probs.add(c.Pos.File, v.Line, "a variable that repeats another multiplies it: use each once", "case %s: variable %s expands to more than %d YAML nodes", c.ID, k, spec.MaxExpandedNodes)
			}
		}
	}
}

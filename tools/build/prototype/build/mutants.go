package build

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Mutant is a deliberately non-conformant variant of the prototype: a
// plausible mistake of an implementer or a vendor fork, built on demand like
// the prototype itself (its edits change the cache key). The suite must
// reject every mutant; one it passes is a missing case.
type Mutant struct {
	Name string
	// Mistake says, for the mutation table, what the variant gets wrong;
	// for a legal variant (Variants), what it does otherwise.
	Mistake string
	// Reading, set on a legal variant only, says why the KEP allows it:
	// the register entry that leaves the choice open, or the KEP's words.
	Reading string
	// Omit names a prototype edit group the mutant leaves out.
	Omit string
	// Edits are applied after the prototype's, so they anchor on its text.
	Edits []Edit
	// Equivalent, when set, says why no black-box case can tell the mutant
	// from the prototype; the mutation table shows it instead of a gap.
	Equivalent string
}

// Mutants are the variants `prototype build -mutant NAME` and the
// prototype-<name> providers build, in the order the mutation table lists
// them.
func Mutants() []Mutant {
	return slices.Concat(
		fieldCopyMutants(),
		skewGuardMutants(),
		containerKindMutants(),
		partialCopyMutants(),
		capacitySourceMutants(),
		dropOnDisableMutants(),
		validationMutants(),
		allocatorMutants(),
		metricsMutants(),
		schedulerExtraMutants(),
		validationExtraMutants(),
		reachMutants(),
	)
}

// LookupMutant finds a mutant, or a variant (see Variants), by name.
func LookupMutant(name string) (Mutant, error) {
	var names []string
	for _, m := range append(Mutants(), Variants()...) {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return Mutant{}, fmt.Errorf("unknown prototype mutant %q (one of: %s)", name, strings.Join(names, ", "))
}

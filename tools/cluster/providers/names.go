package providers

import (
	"slices"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/build/prototype/build"
)

// Names lists every name --provider accepts, the plain implementations
// first, then the prototype's mutants and variants, so that a command line
// can refuse a misspelt one before it builds anything.
func Names() []string {
	names := []string{"local", "prototype", prototypeStatic, "kubeconfig", "kind"}
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range mutants.Names() {
		add(n)
	}
	for _, m := range append(build.Mutants(), build.Variants()...) {
		add("prototype-" + m.Name)
	}
	return names
}

// Known says whether Build accepts name.
func Known(name string) bool { return slices.Contains(Names(), name) }

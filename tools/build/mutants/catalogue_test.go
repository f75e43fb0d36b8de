package mutants

import "testing"

// Every mutant has a unique provider name, says its mistake, and is found
// again by that name; build mutants also by their own name.
func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range All() {
		if seen[m.Provider] {
			t.Errorf("%s listed twice", m.Provider)
		}
		seen[m.Provider] = true
		if m.Mistake == "" {
			t.Errorf("%s does not say its mistake", m.Provider)
		}
		if got, ok := Lookup(m.Provider); !ok || got.Provider != m.Provider {
			t.Errorf("Lookup(%s) = %v, %v", m.Provider, got.Provider, ok)
		}
		if m.Variant.Build != "" {
			if got, ok := Lookup(m.Variant.Build); !ok || got.Provider != m.Provider {
				t.Errorf("Lookup(%s) = %v, %v", m.Variant.Build, got.Provider, ok)
			}
		}
	}
	for _, p := range []string{ProtobufScheduler, ProtobufStorage, "prototype-driver-whole-device", "prototype-sidecars-without-capacity"} {
		if !seen[p] {
			t.Errorf("%s is not in the catalogue", p)
		}
	}
}

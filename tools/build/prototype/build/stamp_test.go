package build

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
)

// kube-apiserver parses its own version at start (component-base's
// compatibility version): every stamp, the mutants' too, must be a
// semantic version that orders as the release it is built from.
func TestStampsAreTheBaseReleaseWithBuildMetadata(t *testing.T) {
	base := version.MustParseSemantic(BaseVersion)
	opts := []Options{{}}
	for _, m := range Mutants() {
		opts = append(opts, Options{Mutant: m.Name})
	}
	for _, o := range opts {
		v, err := version.ParseSemantic(Stamp(o))
		if err != nil {
			t.Errorf("mutant %q: stamp %q: %v", o.Mutant, Stamp(o), err)
			continue
		}
		if c, _ := v.Compare(BaseVersion); c != 0 || v.BuildMetadata() == "" {
			t.Errorf("mutant %q: stamp %q orders as %v against %v, build metadata %q; want the base release with build metadata", o.Mutant, Stamp(o), c, base, v.BuildMetadata())
		}
	}
}

// The provider's name (in cluster names and reports) and the binaries'
// version are two strings: a mutant and the static link show in the name,
// only the mutant in the version.
func TestProviderNameAndStampDiffer(t *testing.T) {
	o := Options{Mutant: "accepts-zero", Static: true}
	if got, want := Version(o), "prototype-v1.37.2+kep6406-mutant-accepts-zero-static"; got != want {
		t.Errorf("Version = %q, want %q", got, want)
	}
	if got, want := Stamp(o), "v1.37.2+kep6406.mutant-accepts-zero"; got != want {
		t.Errorf("Stamp = %q, want %q", got, want)
	}
}

package runner

import (
	"testing"

	"github.com/draconform/draconform/tools/cluster/probe"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
)

// A case that needs draconform's own test driver blocks where the cluster
// lacks it, unless the run certifies another driver: then the
// driver-profile cases check real pods on that driver, and the case does
// not apply.
func TestTestDriverCasesStandAsideForAVendorProfile(t *testing.T) {
	needsTestDriver := plan.Case{ID: "s/k@on", Case: &spec.Case{Requires: spec.Requires{TestDriver: true}}}
	vendor := &spec.DriverProfile{Name: "example", Driver: "gpu.example.com"}
	own := &spec.DriverProfile{Name: "testdriver", Driver: probe.TestDriverName}
	noNodes := &cellState{}
	withNodes := &cellState{Caps: probe.Capabilities{TestDriverNodes: []string{"n1"}}}
	for _, tt := range []struct {
		name         string
		profile      *spec.DriverProfile
		st           *cellState
		skip         bool
		inapplicable bool
	}{
		{"the test driver's profile, no node of it", own, noNodes, true, false},
		{"a vendor's profile, no node of the test driver", vendor, noNodes, true, true},
		{"a vendor's profile, the test driver there too", vendor, withNodes, false, false},
	} {
		u := unmet(needsTestDriver, tt.st, tt.profile)
		if (u.reason != "") != tt.skip || u.inapplicable != tt.inapplicable {
			t.Errorf("%s: unmet %+v, want skip %t, inapplicable %t", tt.name, u, tt.skip, tt.inapplicable)
		}
	}
}

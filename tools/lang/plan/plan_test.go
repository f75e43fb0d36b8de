package plan_test

import (
	"slices"
	"testing"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
)

func TestExpandShippedSuites(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	all := plan.Expand(b, plan.Filter{})
	ids := map[string]bool{}
	for _, c := range all {
		if ids[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		ids[c.ID] = true
		for _, want := range []string{"suite:" + c.Suite.Name, "cell:" + c.Cell.Name} {
			if !slices.Contains(c.Labels, want) {
				t.Errorf("%s lacks label %s: %v", c.ID, want, c.Labels)
			}
		}
	}
	serial := 0
	for _, c := range all {
		restarts := false
		for _, st := range c.Case.Steps {
			restarts = restarts || st.Restart != nil || st.Outage != nil
		}
		if c.Serial != restarts || c.Serial != slices.Contains(c.Labels, "restart") {
			t.Errorf("%s: serial %t, restarts a component %t, labels %v", c.ID, c.Serial, restarts, c.Labels)
		}
		if c.Serial {
			serial++
		}
	}
	if serial == 0 {
		t.Error("no case restarts a component; the serial path is untested")
	}
	off := plan.Expand(b, plan.Filter{Cells: []string{"consumable-capacity-off"}})
	if len(off) == 0 || len(off) >= len(all) {
		t.Errorf("cell filter kept %d of %d cases", len(off), len(all))
	}
	for _, c := range off {
		if c.Cell.Name != "consumable-capacity-off" {
			t.Errorf("cell filter let %s through", c.ID)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Notes/Constraints/Caveats":    "notes-constraints-caveats",
		"Upgrade / Downgrade Strategy": "upgrade-downgrade-strategy",
		"KEP-5004":                     "kep-5004",
	} {
		if got := plan.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// The two cases that go through resource.k8s.io/v1beta2 must say so, and no
// case that stays on v1 may claim a version it does not use.
func TestCasesNameTheVersionsTheyGoThrough(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, c := range plan.Expand(b, plan.Filter{}) {
		if len(c.APIVersions) > 0 {
			got[c.Suite.Name+"/"+c.Case.ID] = c.APIVersions
		}
	}
	for _, id := range []string{"kep6406-api/older-api-versions-lose-the-field", "kep6406-api/older-api-version-write-drops-the-field"} {
		if !slices.Equal(got[id], []string{"resource.k8s.io/v1beta2"}) {
			t.Errorf("%s: API versions %v, want [resource.k8s.io/v1beta2]", id, got[id])
		}
		delete(got, id)
	}
	for id, v := range got {
		t.Errorf("%s claims API versions %v that none of its steps names", id, v)
	}
}

// Cases that create Nodes need consent on a cluster the run did not start;
// the others must not be held back by it.
func TestCasesThatCreateFakeNodes(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	fake := map[string]bool{}
	n, all := 0, plan.Expand(b, plan.Filter{})
	for _, c := range all {
		fake[c.Suite.Name+"/"+c.Case.ID] = c.FakeNodes
		if c.FakeNodes {
			n++
		}
	}
	for id, want := range map[string]bool{
		"feature-absent/strict-write-rejected":                    false, // a DeviceClass alone
		"kep6406-api/field-stored":                                false,
		"kep6406-scheduling/synthesized-request-carries-capacity": true,  // a node fixture in given
		"kep6406-kubelet/pod-runs-with-its-share":                 false, // the real node of the test driver
	} {
		got, ok := fake[id]
		if !ok {
			t.Errorf("no case %s", id)
			continue
		}
		if got != want {
			t.Errorf("%s: FakeNodes = %t, want %t", id, got, want)
		}
	}
	t.Logf("%d of %d case-cells create fake Nodes", n, len(all))
}

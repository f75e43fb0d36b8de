package steps_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

const storedClaim = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: c1
  labels: {app: x, tier: ""}
spec:
  devices:
    requests:
    - name: req-0
      exactly: {deviceClassName: ` + stepstest.Prefix + `-gpu, count: 1, capacity: {requests: {shares: "1"}}}
`

func TestAssert(t *testing.T) {
	tests := []struct {
		name   string
		object string
		fails  []string
	}{
		{name: "partial match", object: "spec: {devices: {requests: [{name: req-0}]}}"},
		{name: "variables and quantities", object: `spec: {devices: {requests: [{exactly: {deviceClassName: "${prefix}-gpu", capacity: {requests: {shares: 1000m}}}}]}}`},
		{name: "absent field", object: "status: null"},
		{name: "present field", object: "metadata: {labels: {app: <any>}}"},
		{name: "field differs", object: "spec: {devices: {requests: [{exactly: {count: 2}}]}}",
			fails: []string{"not met within 300ms", "ResourceClaim c1 does not match",
				"spec.devices.requests[0].exactly.count: differs (want 2, got 1)", "--- want", "+++ got", "-          count: 2", "+          count: 1"}},
		{name: "diff is pruned", object: "spec: {devices: {requests: [{exactly: {count: 2}}]}}",
			fails: []string{"count"}},
		{name: "null but present", object: "spec: {devices: {requests: [{exactly: {capacity: null}}]}}",
			fails: []string{"spec.devices.requests[0].exactly.capacity: must be absent", "shares"}},
		{name: "missing", object: "metadata: {annotations: {a: b}}", fails: []string{"metadata.annotations: missing"}},
		{name: "list length", object: "spec: {devices: {requests: [{name: req-0}, {name: req-1}]}}",
			fails: []string{"spec.devices.requests: length 1, want 2"}},
		{name: "any but absent", object: "status: <any>", fails: []string{"status: missing"}},
		{name: "any but empty", object: "metadata: {labels: {tier: <any>}}", fails: []string{"metadata.labels.tier: empty (<any> needs a value)"}},
		{name: "undefined variable", object: `metadata: {name: "${nope}"}`, fails: []string{"assert resourceclaim/c1", "undefined variable ${nope}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			f.SeedYAML("c1", storedClaim)
			a := decode[spec.Assert](t, "ref: resourceclaim/c1\nwithin: 300ms\nobject: {"+tt.object+"}")
			err := run(t, f, &steps.Assert{Spec: a})
			check(t, err, tt.fails)
			if tt.name == "diff is pruned" && err != nil {
				for _, unasserted := range []string{"deviceClassName", "app", "req-0"} {
					if strings.Contains(err.Error(), unasserted) {
						t.Errorf("the diff shows %q, which was not asserted:\n%v", unasserted, err)
					}
				}
			}
		})
	}
}

func TestAssertWaitsForChange(t *testing.T) {
	f := stepstest.New(t)
	c := f.SeedYAML("c1", storedClaim)
	f.Later(100*time.Millisecond, func() {
		f.Modify(c, func(u *unstructured.Unstructured) {
			u.Object["status"] = map[string]any{"allocation": map[string]any{"devices": map[string]any{}}}
		})
	})
	start := time.Now()
	mustPass(t, run(t, f, &steps.Assert{Spec: decode[spec.Assert](t, "ref: resourceclaim/c1\nwithin: 3s\nobject: {status: {allocation: <any>}}")}))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the change was seen after %s", d)
	}
}

func TestAssertSeesDeletion(t *testing.T) {
	f := stepstest.New(t)
	c := f.SeedYAML("c1", storedClaim)
	f.Later(50*time.Millisecond, func() {
		if err := f.Dyn.Tracker().Delete(c.GVR, c.Object.GetNamespace(), "c1"); err != nil {
			t.Error(err)
		}
	})
	mustFail(t, run(t, f, &steps.Assert{Spec: decode[spec.Assert](t, "ref: resourceclaim/c1\nwithin: 300ms\nobject: {status: <any>}")}),
		"c1 was deleted")
}

func TestAssertUnknownRef(t *testing.T) {
	f := stepstest.New(t)
	mustFail(t, run(t, f, &steps.Assert{Spec: decode[spec.Assert](t, "ref: pod/p9\nobject: {}")}), "pod/p9 was not created by this case")
}

// WaitExists is how the runner waits for a namespace's default ServiceAccount.
func TestWaitExists(t *testing.T) {
	f := stepstest.New(t)
	sa := f.Dyn.Resource(corev1.SchemeGroupVersion.WithResource("serviceaccounts")).Namespace(stepstest.Namespace)
	mustFail(t, steps.WaitExists(context.Background(), sa, "default", short), "not met within 300ms", "no object seen")
	f.Later(50*time.Millisecond, func() {
		f.AddYAML("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default}")
	})
	mustPass(t, steps.WaitExists(context.Background(), sa, "default", 3*time.Second))
}

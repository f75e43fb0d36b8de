package steps_test

import (
	"errors"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

// Regression tests for defects found while writing these tests; each failed
// before its fix.

// wait.go:41-93: a hold whose list/watch never works reports success, since
// UntilWithSync only ever returns a timeout and timeoutIsSuccess turns any
// timeout into a pass. The hold must fail when the informer never synced.
func TestRegressionHoldPassesWhenItCannotWatch(t *testing.T) {

	f := stepstest.New(t)
	f.SeedYAML("p1", podYAML("p1", "", unschedulableStatus))
	var lists atomic.Int32
	f.Dyn.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if lists.Add(1) > 1 { // the hold's list, after the first wait
			return true, nil, errors.New("pods is forbidden")
		}
		return false, nil, nil
	})
	mustFail(t, run(t, f, &steps.ExpectUnschedulable{Spec: &spec.ExpectUnschedulable{
		Pod: "p1", Message: "cannot allocate", Within: spec.Duration(short), For: spec.Duration(short)}}), "forbidden")
}

// object.go:131-135: a patch map that lands where the base has no map is
// copied as is, so a null inside it is kept rather than deleting.
func TestRegressionPatchKeepsNestedNull(t *testing.T) {

	f := stepstest.New(t)
	c, _ := mustInstantiate(t, f, "{fixture: pod-extended, patch: {metadata: {annotations: {a: null, b: x}}}}")
	wantField(t, c.Object, map[string]any{"b": "x"}, "metadata", "annotations")
}

// claim.go:176-192: every claim owned by the pod counts, so a pod that also
// uses a ResourceClaimTemplate (whose claim the pod owns too) fails
// "owns 2 claims" although the scheduler synthesized exactly one.
func TestRegressionTemplateClaimCountsAsSynthesized(t *testing.T) {

	f := stepstest.New(t)
	f.SeedYAML("gpu", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: "+stepstest.Prefix+"-gpu}")
	f.Seed("p1", stepstest.Obj(t, synthPod))
	f.AddYAML(synthClaim)
	f.AddYAML(ownedClaim("p1-template-claim", "p1")) // no annotation: from a template
	mustPass(t, run(t, f, &steps.ExpectClaim{Spec: decode[spec.ExpectClaim](t, synthExpect)}))
}

func TestInstantiateRefusesForeignNames(t *testing.T) {
	tests := []struct{ name, use, fact string }{
		{name: "cluster-scoped name without prefix", use: "{name: n, object: {apiVersion: v1, kind: Node, metadata: {name: worker-1}}}", fact: "worker-1"},
		{name: "class capturing a real resource", use: `{fixture: class-extended, name: gpu, vars: {resource: nvidia.com/gpu}}`, fact: "nvidia.com/gpu"},
		{name: "slice of a real driver", use: `{name: s, object: {apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: "${prefix}-s"}, spec: {driver: gpu.nvidia.com}}}`, fact: "gpu.nvidia.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := instantiate(t, stepstest.New(t), tt.use)
			mustFail(t, err, tt.fact)
		})
	}
	// Namespaced objects live in the case namespace under any name.
	mustInstantiate(t, stepstest.New(t), "{name: c, object: {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: any}}}")
}

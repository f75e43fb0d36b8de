package steps

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/tools/lang/spec"
)

// SchedulerSeesClasses is a barrier on kube-scheduler's DeviceClass and
// ResourceClaim watches. It writes a probe: two devices of its own driver on
// every node, a class naming a new extended resource that selects them, a
// hand-written claim for one of them, and a pod that asks for the resource
// and uses the claim. The scheduler can only synthesize the pod's claim (in
// PreBind) once its DeviceClass informer has delivered the probe class and
// its ResourceClaim informer the probe claim; an informer delivers events in
// the order the API server wrote them, to the extended-resource cache first:
// so by then it has seen every class and claim write the case made before.
// The probe pod is pinned to the case's nodes like any of its pods, so the
// case's nodes are seen too. It matters beyond binding: kube-scheduler
// records FailedScheduling as an event series keyed without the message, so
// the message of a first attempt made on a stale view stays on the event.
// Resources and classes of the case are left alone: the probe's driver is
// the case's, prefixed.
type SchedulerSeesClasses struct{ Spec *spec.SchedulerSeesClasses }

// defaultSeenWithin bounds the barrier: one pod scheduled, as for expectations.
const defaultSeenWithin = defaultScheduleWithin

// maxSeenWithin keeps a barrier from standing in for an expectation.
const maxSeenWithin = 2 * time.Minute

// Describe implements Step.
func (s *SchedulerSeesClasses) Describe() string {
	return "kube-scheduler has seen the case's DeviceClass and ResourceClaim writes (a probe class and claim served to a probe pod)"
}

// Run implements Step.
func (s *SchedulerSeesClasses) Run(ctx context.Context, env *Env) error {
	defer func(began time.Time) { AddPhase(ctx, PhaseBarriers, time.Since(began)) }(time.Now())
	ctx = WithPhases(ctx, nil)
	local := fmt.Sprintf("draconform-seen-%d", env.nextProbe())
	uses, err := probeUses(local)
	if err != nil {
		return err
	}
	for _, u := range uses {
		w := &Write{Verb: verbCreate, Spec: &spec.Write{ObjectUse: *u}}
		if err := w.Run(ctx, env); err != nil {
			return fmt.Errorf("class barrier: %w", err)
		}
	}
	within := time.Duration(s.Spec.Within)
	if within == 0 {
		within = defaultSeenWithin
	}
	claim, err := synthesizedClaim(ctx, env, local, within)
	if err != nil {
		return fmt.Errorf("class barrier: no claim for the probe class %s (waited up to %s), so kube-scheduler cannot be shown to have seen the case's class writes: %w", local, within, err)
	}
	class, err := env.NameOf(spec.RefOf("DeviceClass", local))
	if err != nil {
		return err
	}
	requests, _, _ := unstructured.NestedSlice(claim.Object.Object, "spec", "devices", "requests")
	for _, r := range requests {
		got, _, _ := unstructured.NestedString(r.(map[string]any), "exactly", "deviceClassName")
		if got != class {
			return fmt.Errorf("class barrier: the probe pod's claim %s asks for class %q, not the probe class %q", claim.Object.GetName(), got, class)
		}
	}
	env.logf("class barrier: kube-scheduler served probe class %s (claim %s)", class, claim.Object.GetName())
	return nil
}

// probeUses are the objects of one probe, as inline object uses, so that
// the case's labels, namespace, pod pinning and clean-up apply to them as
// to any object the case writes.
func probeUses(local string) ([]*spec.ObjectUse, error) {
	driver := local + ".${driver}"
	resource := "${domain}/" + local
	objects := []map[string]any{
		{
			"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
			"metadata": map[string]any{"name": "${prefix}-${name}"},
			"spec": map[string]any{
				"driver": driver, "allNodes": true,
				"pool":    map[string]any{"name": "${prefix}-${name}", "generation": 1, "resourceSliceCount": 1},
				"devices": []any{map[string]any{"name": "probe-0"}, map[string]any{"name": "probe-1"}},
			},
		},
		{
			"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
			"metadata": map[string]any{"name": "${prefix}-${name}"},
			"spec": map[string]any{
				"selectors":            []any{map[string]any{"cel": map[string]any{"expression": fmt.Sprintf("device.driver == %q", driver)}}},
				"extendedResourceName": resource,
			},
		},
		{
			"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
			"metadata": map[string]any{"name": "${name}"},
			"spec": map[string]any{"devices": map[string]any{"requests": []any{map[string]any{
				"name": "probe", "exactly": map[string]any{"deviceClassName": "${prefix}-${name}"},
			}}}},
		},
		{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "${name}"},
			"spec": map[string]any{
				"resourceClaims": []any{map[string]any{"name": "probe", "resourceClaimName": "${name}"}},
				"containers": []any{map[string]any{
					"name": "main", "image": "registry.k8s.io/pause:3.10",
					"resources": map[string]any{
						"requests": map[string]any{resource: "1"},
						"limits":   map[string]any{resource: "1"},
						"claims":   []any{map[string]any{"name": "probe"}},
					},
				}},
			},
		},
	}
	var uses []*spec.ObjectUse
	for _, o := range objects {
		u := &spec.ObjectUse{Name: local}
		if err := u.Object.Encode(o); err != nil {
			return nil, fmt.Errorf("class barrier: building the probe: %w", err)
		}
		uses = append(uses, u)
	}
	return uses, nil
}

func checkSchedulerSeesClasses(c Checker, st *spec.Step) {
	if d := time.Duration(st.SchedulerSeesClasses.Within); d < 0 || d > maxSeenWithin {
		c.Problem(st.Pos, "e.g. within: 30s", "schedulerSeesClasses: within: must be at most %s", maxSeenWithin)
	}
}

package steps

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/draconform/draconform/steps/match"
)

var deviceClassGVR = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"}

// CapacityInvariant checks, after every case in every cell, the one promise
// no cell may break: a request the scheduler synthesized for a class that
// sets extendedResourceCapacityRequests carries exactly that capacity. It
// catches a scheduler that silently loses the field (one reading
// DeviceClasses as protobuf does) even where no case looks for it. Claims
// created before their class last changed are left out: they were made
// under the class as it was.
type CapacityInvariant struct{}

// Describe implements Step.
func (CapacityInvariant) Describe() string {
	return "every synthesized request of a class with extendedResourceCapacityRequests carries that capacity"
}

// Run implements Step.
func (CapacityInvariant) Run(ctx context.Context, env *Env) error {
	claims, err := env.Clients.Dyn.Resource(ClaimGVR).Namespace(env.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing claims: %w", err)
	}
	for i := range claims.Items {
		claim := &claims.Items[i]
		if claim.GetAnnotations()[ExtendedResourceClaimAnnotation] != "true" {
			continue
		}
		requests, _, _ := unstructured.NestedSlice(claim.Object, "spec", "devices", "requests")
		for _, r := range requests {
			if err := checkRequestCapacity(ctx, env, claim, r); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkRequestCapacity(ctx context.Context, env *Env, claim *unstructured.Unstructured, r any) error {
	req, _ := r.(map[string]any)
	name, _, _ := unstructured.NestedString(req, "name")
	className, _, _ := unstructured.NestedString(req, "exactly", "deviceClassName")
	if className == "" {
		return nil
	}
	class, err := env.Clients.Dyn.Resource(deviceClassGVR).Get(ctx, className, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading class %s of claim %s: %w", className, claim.GetName(), err)
	}
	want, set, _ := unstructured.NestedMap(class.Object, "spec", "extendedResourceCapacityRequests", "requests")
	if !set || changedSince(class, claim.GetCreationTimestamp()) {
		return nil
	}
	got, has, _ := unstructured.NestedMap(req, "exactly", "capacity", "requests")
	owner := "its pod"
	if refs := claim.GetOwnerReferences(); len(refs) > 0 {
		owner = "pod " + refs[0].Name
	}
	if !has {
		return fmt.Errorf("class %s sets extendedResourceCapacityRequests %v, but request %s of claim %s, synthesized for %s, has no capacity: the scheduler lost the field (one that reads DeviceClasses as protobuf does) or ignored it", className, want, name, claim.GetName(), owner)
	}
	if ms := append(match.Subset(want, got), match.Subset(got, want)...); len(ms) > 0 {
		return fmt.Errorf("request %s of claim %s (for %s) asks for capacity %v, but class %s declares %v:\n%s", name, claim.GetName(), owner, got, className, want, indent(match.Strings(ms)))
	}
	return nil
}

// changedSince tells whether any field manager wrote the object at or after
// t (managed field times have one-second resolution, hence "at").
func changedSince(u *unstructured.Unstructured, t metav1.Time) bool {
	for _, mf := range u.GetManagedFields() {
		if mf.Time != nil && !mf.Time.Before(&t) {
			return true
		}
	}
	return false
}

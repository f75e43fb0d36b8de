package steps

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/draconform/draconform/steps/match"
)

var deviceClassGVR = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"}

// CapacityInvariant checks, after every case in every cell, the one promise
// no cell may break: a request the scheduler synthesized for a class carries
// exactly the class's extendedResourceCapacityRequests, and no capacity
// where the class sets none. It catches a scheduler that silently loses the
// field (one reading DeviceClasses as protobuf does) even where no case
// looks for it. A class whose spec never changed (generation 1) is checked
// as it is, whenever the claim was made; one that changed may have been
// different when the claim was made, so any version the case wrote of it
// will do; so for one the case deleted. Only a class changed or deleted
// behind the case's back is left out.
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
	got, has, _ := unstructured.NestedMap(req, "exactly", "capacity", "requests")
	owner := "its pod"
	if refs := claim.GetOwnerReferences(); len(refs) > 0 {
		owner = "pod " + refs[0].Name
	}
	anyVersion := func(current ...map[string]any) error {
		versions := env.ClassVersions(className)
		if len(versions) == 0 {
			return nil // changed or deleted by someone else: what it was then is unknown
		}
		for _, v := range append(versions, current...) {
			if sameRequests(v, got) {
				return nil
			}
		}
		return fmt.Errorf("request %s of claim %s (for %s) asks for capacity %v, but no version of class %s the case wrote declared that (they declared %v)", name, claim.GetName(), owner, got, className, versions)
	}
	class, err := env.Clients.Dyn.Resource(deviceClassGVR).Get(ctx, className, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// Deleted since, as class migration does: the claim was made from
		// one of the versions the case wrote.
		return anyVersion()
	}
	if err != nil {
		return fmt.Errorf("reading class %s of claim %s: %w", className, claim.GetName(), err)
	}
	want, set, _ := unstructured.NestedMap(class.Object, "spec", "extendedResourceCapacityRequests", "requests")
	if class.GetGeneration() > 1 {
		return anyVersion(want)
	}
	switch {
	case !set && !has:
		return nil
	case !set:
		return fmt.Errorf("class %s does not set extendedResourceCapacityRequests, but request %s of claim %s, synthesized for %s, asks for capacity %v", className, name, claim.GetName(), owner, got)
	case !has:
		return fmt.Errorf("class %s sets extendedResourceCapacityRequests %v, but request %s of claim %s, synthesized for %s, has no capacity: the scheduler lost the field (one that reads DeviceClasses as protobuf does) or ignored it", className, want, name, claim.GetName(), owner)
	}
	if ms := append(match.Subset(want, got), match.Subset(got, want)...); len(ms) > 0 {
		return fmt.Errorf("request %s of claim %s (for %s) asks for capacity %v, but class %s declares %v:\n%s", name, claim.GetName(), owner, got, className, want, indent(match.Strings(ms)))
	}
	return nil
}

// sameRequests compares two capacity request maps, absent equal to empty.
func sameRequests(a, b map[string]any) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return len(match.Subset(a, b)) == 0 && len(match.Subset(b, a)) == 0
}

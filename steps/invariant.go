package steps

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/draconform/draconform/steps/match"
)

var (
	deviceClassGVR   = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"}
	resourceSliceGVR = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}
)

// CapacityInvariant checks, after every case in every cell, the one promise
// no cell may break: a request the scheduler synthesized for a class carries
// exactly the class's extendedResourceCapacityRequests, and no capacity
// where the class sets none; and every device allocated to such a request
// with capacity, where the device is shared (allowMultipleAllocations),
// records a shareID and consumes at least the request of every capacity.
// It catches a scheduler that silently loses the field (one reading
// DeviceClasses as protobuf does), or an allocator that takes a shared
// device whole or drops its share, even where no case looks for it. A claim
// is synthesized when it carries the annotation or a pod's
// status.extendedResourceClaimStatus names it, so a scheduler that forgets
// the annotation does not hide its claims. A class whose spec never changed (generation 1) is checked
// as it is, whenever the claim was made; one that changed may have been
// different when the claim was made, so any version the case wrote of it
// will do; so for one the case deleted. Only a class changed or deleted
// behind the case's back is left out.
type CapacityInvariant struct{}

// Describe implements Step.
func (CapacityInvariant) Describe() string {
	return "every synthesized request of a class with extendedResourceCapacityRequests carries that capacity, and consumes it with a share of every shared device allocated to it"
}

// Run implements Step.
func (CapacityInvariant) Run(ctx context.Context, env *Env) error {
	claims, err := env.Clients.Dyn.Resource(ClaimGVR).Namespace(env.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing claims: %w", err)
	}
	named, err := claimsNamedByPods(ctx, env)
	if err != nil {
		return err
	}
	var devices *sharedDevices
	for i := range claims.Items {
		claim := &claims.Items[i]
		pod, byStatus := named[claim.GetName()]
		if claim.GetAnnotations()[ExtendedResourceClaimAnnotation] != "true" && !byStatus {
			continue
		}
		owner := "its pod"
		if byStatus {
			owner = "pod " + pod
		} else if refs := claim.GetOwnerReferences(); len(refs) > 0 {
			owner = "pod " + refs[0].Name
		}
		requests, _, _ := unstructured.NestedSlice(claim.Object, "spec", "devices", "requests")
		for _, r := range requests {
			if err := checkRequestCapacity(ctx, env, claim, owner, r); err != nil {
				return err
			}
		}
		results, _, _ := unstructured.NestedSlice(claim.Object, "status", "allocation", "devices", "results")
		for _, res := range results {
			if devices == nil {
				if devices, err = listSharedDevices(ctx, env); err != nil {
					return err
				}
			}
			if err := checkAllocation(claim, owner, requests, res, devices); err != nil {
				return err
			}
		}
	}
	return nil
}

// claimsNamedByPods maps the claims the case's pods name in
// status.extendedResourceClaimStatus to the pods naming them.
func claimsNamedByPods(ctx context.Context, env *Env) (map[string]string, error) {
	pods, err := env.Clients.Dyn.Resource(podGVR).Namespace(env.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	named := map[string]string{}
	for _, p := range pods.Items {
		if name, _, _ := unstructured.NestedString(p.Object, "status", "extendedResourceClaimStatus", "resourceClaimName"); name != "" {
			named[name] = p.GetName()
		}
	}
	return named, nil
}

func checkRequestCapacity(ctx context.Context, env *Env, claim *unstructured.Unstructured, owner string, r any) error {
	req, _ := r.(map[string]any)
	name, _, _ := unstructured.NestedString(req, "name")
	className, _, _ := unstructured.NestedString(req, "exactly", "deviceClassName")
	if className == "" {
		return nil
	}
	got, has, _ := unstructured.NestedMap(req, "exactly", "capacity", "requests")
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

// checkAllocation checks one allocated device of a synthesized claim: where
// its request asks for capacity and the device is shared, the result must
// name its share and consume at least what was asked of every capacity
// (more where the device's requestPolicy rounds up). A device that is not
// shared is allocated whole, with neither (KEP-5075).
func checkAllocation(claim *unstructured.Unstructured, owner string, requests []any, res any, devices *sharedDevices) error {
	result, _ := res.(map[string]any)
	reqName, _, _ := unstructured.NestedString(result, "request")
	asked := requestCapacity(requests, reqName)
	if len(asked) == 0 {
		return nil
	}
	driver, _, _ := unstructured.NestedString(result, "driver")
	pool, _, _ := unstructured.NestedString(result, "pool")
	device, _, _ := unstructured.NestedString(result, "device")
	shareID, _, _ := unstructured.NestedString(result, "shareID")
	consumed, hasConsumed, _ := unstructured.NestedMap(result, "consumedCapacity")
	where := fmt.Sprintf("device %s/%s/%s, allocated to request %s of claim %s (synthesized for %s, asking for capacity %v)", driver, pool, device, reqName, claim.GetName(), owner, asked)
	shared, known := devices.shared(driver, pool, device)
	if !known {
		// The slice is gone; only a shared allocation has either field.
		shared = shareID != "" || hasConsumed
	}
	if !shared {
		return nil
	}
	if shareID == "" {
		return fmt.Errorf("%s: the device is shared (allowMultipleAllocations), but the allocation has no shareID: the allocator did not record the share", where)
	}
	var short []string
	for _, key := range slices.Sorted(maps.Keys(asked)) {
		want, err := quantityOf(asked[key])
		if err != nil {
			return fmt.Errorf("%s: request capacity %s: %w", where, key, err)
		}
		got, ok := consumed[key]
		if !ok {
			short = append(short, fmt.Sprintf("%s: none consumed, %s asked", key, want.String()))
			continue
		}
		q, err := quantityOf(got)
		if err != nil {
			return fmt.Errorf("%s: consumedCapacity %s: %w", where, key, err)
		}
		if q.Cmp(want) < 0 {
			short = append(short, fmt.Sprintf("%s: %s consumed, %s asked", key, q.String(), want.String()))
		}
	}
	if len(short) > 0 {
		return fmt.Errorf("%s: the device is shared, but its consumedCapacity %v is below what the request asks for (%s): the allocator took the device without consuming the capacity", where, consumed, strings.Join(short, "; "))
	}
	return nil
}

// requestCapacity is capacity.requests of the request a result names:
// a request of exactly one device, or "request/subrequest" of a
// firstAvailable list.
func requestCapacity(requests []any, name string) map[string]any {
	parent, sub, isSub := strings.Cut(name, "/")
	for _, r := range requests {
		req, _ := r.(map[string]any)
		if n, _, _ := unstructured.NestedString(req, "name"); n != parent {
			continue
		}
		if !isSub {
			c, _, _ := unstructured.NestedMap(req, "exactly", "capacity", "requests")
			return c
		}
		subs, _, _ := unstructured.NestedSlice(req, "firstAvailable")
		for _, s := range subs {
			sr, _ := s.(map[string]any)
			if n, _, _ := unstructured.NestedString(sr, "name"); n == sub {
				c, _, _ := unstructured.NestedMap(sr, "capacity", "requests")
				return c
			}
		}
	}
	return nil
}

func quantityOf(v any) (resource.Quantity, error) {
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, fmt.Errorf("%q is not a quantity: %w", s, err)
	}
	return q, nil
}

// sharedDevices says, per device the cluster's ResourceSlices publish,
// whether it allows multiple allocations.
type sharedDevices struct{ byID map[string]bool }

func listSharedDevices(ctx context.Context, env *Env) (*sharedDevices, error) {
	list, err := env.Clients.Dyn.Resource(resourceSliceGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing ResourceSlices to tell shared devices: %w", err)
	}
	d := &sharedDevices{byID: map[string]bool{}}
	for _, s := range list.Items {
		driver, _, _ := unstructured.NestedString(s.Object, "spec", "driver")
		pool, _, _ := unstructured.NestedString(s.Object, "spec", "pool", "name")
		devices, _, _ := unstructured.NestedSlice(s.Object, "spec", "devices")
		for _, dev := range devices {
			m, _ := dev.(map[string]any)
			name, _, _ := unstructured.NestedString(m, "name")
			multi, _, _ := unstructured.NestedBool(m, "allowMultipleAllocations")
			d.byID[driver+"/"+pool+"/"+name] = d.byID[driver+"/"+pool+"/"+name] || multi
		}
	}
	return d, nil
}

// shared says whether the device allows multiple allocations, and whether
// a slice publishes it at all.
func (d *sharedDevices) shared(driver, pool, device string) (shared, known bool) {
	shared, known = d.byID[driver+"/"+pool+"/"+device]
	return shared, known
}

// sameRequests compares two capacity request maps, absent equal to empty.
func sameRequests(a, b map[string]any) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return len(match.Subset(a, b)) == 0 && len(match.Subset(b, a)) == 0
}

package steps

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	inf "gopkg.in/inf.v0"
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
// records a shareID and consumes the request of every capacity, rounded up
// by the device's requestPolicy (R6), under the name the device publishes or
// the request's (R12). It catches a scheduler that silently loses the field
// (one reading DeviceClasses as protobuf does), or an allocator that takes a
// shared device whole, drops its share or records it whole or under another
// name, even where no case looks for it. A claim
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
// name its share and consume what was asked of every capacity, rounded up as
// the device's requestPolicy says and no further (KEP-5075): not less, and
// not the whole device. A device that is not shared is allocated whole, with
// neither.
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
	dev, known := devices.device(driver, pool, device)
	shared := dev.shared
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
	short, over, err := consumedShares(where, driver, dev, asked, consumed)
	if err != nil {
		return err
	}
	if len(short) > 0 {
		return fmt.Errorf("%s: the device is shared, but its consumedCapacity %v is below what the request asks for (%s): the allocator took the device without consuming the capacity (KEP-5075 rounds a request up by the device's requestPolicy)", where, consumed, strings.Join(short, "; "))
	}
	if len(over) > 0 {
		return fmt.Errorf("%s: the device is shared, but its consumedCapacity %v is more than the request, rounded up by the device's requestPolicy where it has one (%s): the allocator consumed more than the share, up to the whole device", where, consumed, strings.Join(over, "; "))
	}
	return nil
}

// consumedShares compares, capacity by capacity, what an allocation of dev
// consumed with what its request asked for: short are those below the ask
// (or below what the device's requestPolicy rounds it up to), over those
// above the rounded ask.
func consumedShares(where, driver string, dev publishedDevice, asked, consumed map[string]any) (short, over []string, err error) {
	for _, key := range slices.Sorted(maps.Keys(asked)) {
		want, err := quantityOf(asked[key])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: request capacity %s: %w", where, key, err)
		}
		// The device's own spelling of the name first: an allocator that
		// matches either spelling (R12) records the share under the name
		// the device publishes, or under the request's.
		capName, capacity, published := dev.capacityFor(driver, key)
		got, ok := consumed[capName]
		if !ok {
			got, ok = consumed[key]
		}
		if !ok {
			short = append(short, fmt.Sprintf("%s: none consumed, %s asked", key, want.String()))
			continue
		}
		q, err := quantityOf(got)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: consumedCapacity %s: %w", where, key, err)
		}
		low, high, known := want, want, false
		if published {
			if low, high, known, err = consumedByPolicy(want, capacity); err != nil {
				return nil, nil, fmt.Errorf("%s: requestPolicy of capacity %s: %w", where, capName, err)
			}
		}
		switch {
		case q.Cmp(want) < 0:
			short = append(short, fmt.Sprintf("%s: %s consumed, %s asked", key, q.String(), want.String()))
		case known && q.Cmp(low) < 0:
			short = append(short, fmt.Sprintf("%s: %s consumed, %s asked, which the device's requestPolicy rounds up to %s", key, q.String(), want.String(), low.String()))
		case known && q.Cmp(high) > 0:
			over = append(over, fmt.Sprintf("%s: %s consumed, %s asked, %s", key, q.String(), want.String(), roundedTo(capacity, high)))
		}
	}
	return short, over, nil
}

// roundedTo says what a request may consume of a capacity.
func roundedTo(capacity map[string]any, high resource.Quantity) string {
	if _, ok, _ := unstructured.NestedMap(capacity, "requestPolicy"); ok {
		return "which the device's requestPolicy rounds up to " + high.String()
	}
	return "on a capacity with no requestPolicy to round it up"
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

// sharedDevices holds, per device the cluster's ResourceSlices publish,
// whether it allows multiple allocations and the capacities it publishes.
type sharedDevices struct{ byID map[string]publishedDevice }

// publishedDevice is one device as its slice publishes it.
type publishedDevice struct {
	shared   bool
	capacity map[string]any
}

func listSharedDevices(ctx context.Context, env *Env) (*sharedDevices, error) {
	list, err := env.Clients.Dyn.Resource(resourceSliceGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing ResourceSlices to tell shared devices: %w", err)
	}
	d := &sharedDevices{byID: map[string]publishedDevice{}}
	for _, s := range list.Items {
		driver, _, _ := unstructured.NestedString(s.Object, "spec", "driver")
		pool, _, _ := unstructured.NestedString(s.Object, "spec", "pool", "name")
		devices, _, _ := unstructured.NestedSlice(s.Object, "spec", "devices")
		for _, dev := range devices {
			m, _ := dev.(map[string]any)
			name, _, _ := unstructured.NestedString(m, "name")
			multi, _, _ := unstructured.NestedBool(m, "allowMultipleAllocations")
			capacity, _, _ := unstructured.NestedMap(m, "capacity")
			id := driver + "/" + pool + "/" + name
			// A pool published in several generations names a device more
			// than once: shared if any says so, its capacities from the one
			// that publishes them.
			p := d.byID[id]
			p.shared = p.shared || multi
			if p.capacity == nil {
				p.capacity = capacity
			}
			d.byID[id] = p
		}
	}
	return d, nil
}

// device is the device as published, and whether a slice publishes it at
// all.
func (d *sharedDevices) device(driver, pool, device string) (publishedDevice, bool) {
	p, known := d.byID[driver+"/"+pool+"/"+device]
	return p, known
}

// capacityFor finds the capacity a request's name asks for: as written, or
// spelled with or without the driver's domain (R12). It returns the name as
// the device publishes it (the request's where none is published).
func (p publishedDevice) capacityFor(driver, name string) (string, map[string]any, bool) {
	candidates := []string{name}
	if short, ok := strings.CutPrefix(name, driver+"/"); ok {
		candidates = append(candidates, short)
	} else if !strings.Contains(name, "/") {
		candidates = append(candidates, driver+"/"+name)
	}
	for _, c := range candidates {
		if capacity, ok := p.capacity[c].(map[string]any); ok {
			return c, capacity, true
		}
	}
	return name, nil, false
}

// consumedByPolicy is what KEP-5075 consumes of a device's capacity for a
// request of want (R6): the request itself without a requestPolicy, rounded
// up to validRange's min and step, or to the least of validValues that holds
// it. With a fractional min or step, v1.37.2 rounds in milli-units where
// DRAConsumableCapacityFractionalRange is on and in whole units where it is
// off, a gate KEP-6406 does not depend on: either is consumed, so the range
// [low, high] holds both. known is false where no valid value holds the
// request, which an allocation should not have passed: only the request
// itself is then a bound.
func consumedByPolicy(want resource.Quantity, capacity map[string]any) (low, high resource.Quantity, known bool, err error) {
	policy, _, _ := unstructured.NestedMap(capacity, "requestPolicy")
	if policy == nil {
		return want, want, true, nil
	}
	if minV, ok, _ := unstructured.NestedFieldNoCopy(policy, "validRange", "min"); ok && minV != nil {
		minQ, err := quantityOf(minV)
		if err != nil {
			return want, want, false, fmt.Errorf("validRange.min: %w", err)
		}
		var stepQ *resource.Quantity
		if stepV, ok, _ := unstructured.NestedFieldNoCopy(policy, "validRange", "step"); ok && stepV != nil {
			q, err := quantityOf(stepV)
			if err != nil {
				return want, want, false, fmt.Errorf("validRange.step: %w", err)
			}
			if q.Sign() <= 0 {
				return want, want, false, nil
			}
			stepQ = &q
		}
		whole := func(q resource.Quantity) *inf.Dec { return inf.NewDec(q.Value(), 0) }
		var exactStep, wholeStep *inf.Dec
		if stepQ != nil {
			exactStep, wholeStep = stepQ.AsDec(), whole(*stepQ)
		}
		exact := roundUpRange(want.AsDec(), minQ.AsDec(), exactStep)
		inWholeUnits := roundUpRange(whole(want), whole(minQ), wholeStep)
		low, high = *resource.NewDecimalQuantity(*exact, want.Format), *resource.NewDecimalQuantity(*inWholeUnits, want.Format)
		if low.Cmp(high) > 0 {
			low, high = high, low
		}
		return low, high, true, nil
	}
	if values, ok, _ := unstructured.NestedSlice(policy, "validValues"); ok && values != nil {
		var least *resource.Quantity
		for _, v := range values {
			q, err := quantityOf(v)
			if err != nil {
				return want, want, false, fmt.Errorf("validValues: %w", err)
			}
			if q.Cmp(want) >= 0 && (least == nil || q.Cmp(*least) < 0) {
				least = &q
			}
		}
		if least == nil {
			return want, want, false, nil
		}
		return *least, *least, true, nil
	}
	return want, want, true, nil
}

// roundUpRange is want raised to minimum, then up to minimum plus a whole
// number of steps (step nil: no step).
func roundUpRange(want, minimum, step *inf.Dec) *inf.Dec {
	if want.Cmp(minimum) < 0 {
		return minimum
	}
	if step == nil {
		return want
	}
	added := new(inf.Dec).Sub(want, minimum)
	steps := new(inf.Dec).QuoRound(added, step, 0, inf.RoundCeil)
	return new(inf.Dec).Add(minimum, new(inf.Dec).Mul(steps, step))
}

// sameRequests compares two capacity request maps, absent equal to empty.
func sameRequests(a, b map[string]any) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return len(match.Subset(a, b)) == 0 && len(match.Subset(b, a)) == 0
}

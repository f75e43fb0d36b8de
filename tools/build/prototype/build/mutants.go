package build

import (
	"fmt"
	"sort"
	"strings"
)

const (
	deviceClassStorage = "pkg/registry/resource/deviceclass/storage/storage.go"
	schedulerPlugin    = "pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go"
)

// Mutant is a deliberately non-conformant variant of the prototype: a
// plausible mistake of an implementer or a vendor fork, built on demand like
// the prototype itself (its edits change the cache key). The suite must
// reject every mutant; one it passes is a missing case.
type Mutant struct {
	Name string
	// Mistake says, for the mutation table, what the variant gets wrong.
	Mistake string
	// Omit names a prototype edit group the mutant leaves out.
	Omit string
	// Edits are applied after the prototype's, so they anchor on its text.
	Edits []Edit
	// Equivalent, when set, says why no black-box case can tell the mutant
	// from the prototype; the mutation table shows it instead of a gap.
	Equivalent string
}

// Mutants are the variants `prototype build -mutant NAME` and the
// prototype-<name> providers build, in the order the mutation table lists
// them.
func Mutants() []Mutant {
	return append([]Mutant{
		{
			Name:    "without-cache-fix",
			Mistake: "scheduler without the backported extended-resource cache fix: it keeps reading a class as it was before an update, until it restarts",
			Omit:    cacheFixEdits().Name,
		},
		{
			Name:    "scheduler-ignores-field",
			Mistake: "scheduler ignores the field: KEP-5004 whole-device requests with the gate on",
			Edits: []Edit{replace(Kubernetes, extendedDRA, "\t\t\tclassCapacity = class.Spec.ExtendedResourceCapacityRequests\n",
				"\t\t\t_ = class // mutant: the capacity requests are never read\n").in("func createRequestsAndMappings(")},
		},
		{
			Name:    "explicit-name-only",
			Mistake: "scheduler applies the capacity only when the pod uses the class's explicit extendedResourceName",
			Edits: []Edit{replace(Kubernetes, extendedDRA, "\t\t\tclassCapacity = class.Spec.ExtendedResourceCapacityRequests\n",
				`			if class.Spec.ExtendedResourceName != nil && v1.ResourceName(*class.Spec.ExtendedResourceName) == resource {
				classCapacity = class.Spec.ExtendedResourceCapacityRequests
			}
`).in("func createRequestsAndMappings(")},
		},
		{
			Name:    "implicit-name-only",
			Mistake: "scheduler applies the capacity only when the pod uses the implicit deviceclass.resource.kubernetes.io/<class> name",
			Edits: []Edit{replace(Kubernetes, extendedDRA, "\t\t\tclassCapacity = class.Spec.ExtendedResourceCapacityRequests\n",
				`			if resource == v1.ResourceName(resourceapi.ResourceDeviceClassPrefix+class.Name) {
				classCapacity = class.Spec.ExtendedResourceCapacityRequests
			}
`).in("func createRequestsAndMappings(")},
		},
		{
			Name:    "multiplies-count",
			Mistake: "scheduler multiplies: one allocation of Count × each amount instead of Count allocations of the amount",
			Edits: []Edit{
				replace(Kubernetes, extendedDRA, "\t\t\tCount:           crq - sum, // the extra devices to request\n\t\t\tCapacity:        capacity.DeepCopy(),\n",
					"\t\t\tCount:           mutantCount(crq-sum, capacity),\n\t\t\tCapacity:        mutantCapacity(crq-sum, capacity),\n",
				).in("func createResourceRequestAndMappings("),
				before(Kubernetes, extendedDRA, "func createRequestsAndMappings(", `// mutantCount and mutantCapacity fold Count shares into one request.
func mutantCount(count int64, capacity *resourceapi.CapacityRequirements) int64 {
	if capacity == nil {
		return count
	}
	return 1
}

func mutantCapacity(count int64, capacity *resourceapi.CapacityRequirements) *resourceapi.CapacityRequirements {
	out := capacity.DeepCopy()
	if out == nil {
		return nil
	}
	for name, q := range out.Requests {
		q.Mul(count)
		out.Requests[name] = q
	}
	return out
}

`),
			},
		},
		{
			Name:    "no-skew-guard",
			Mistake: "scheduler with its gate off silently falls back to whole-device requests for a class that sets the field",
			Edits:   []Edit{noSkewGuard()},
		},
		{
			Name:    "scheduler-ignores-its-gate",
			Mistake: "scheduler copies the field whatever its own gate says",
			Edits: []Edit{noSkewGuard(), replace(Kubernetes, extendedDRA, "\t\tif enableExtendedResourceCapacity {\n\t\t\tclassCapacity = ",
				"\t\tif true {\n\t\t\tclassCapacity = ").in("func createRequestsAndMappings(")},
		},
		{
			Name:    "leaves-unallocated-claim",
			Mistake: "scheduler with its gate off checks the class only after creating the claim, and fails without deleting it: an unallocated ResourceClaim is left behind on every attempt",
			Edits: []Edit{noSkewGuard(), after(Kubernetes, schedulerPlugin, `		claim, err = pl.createExtendedResourceClaimInAPI(ctx, pod, nodeName, state)
		if err != nil {
			return nil, nil, err
		}
`, `		// mutant: the skew guard, after the claim exists and before it is tracked for Unreserve.
		if !pl.fts.EnableDRAExtendedResourceCapacity {
			for _, r := range claim.Spec.Devices.Requests {
				if r.Exactly == nil {
					continue
				}
				if class, err := pl.draManager.DeviceClasses().Get(r.Exactly.DeviceClassName); err == nil && class.Spec.ExtendedResourceCapacityRequests != nil {
					return nil, nil, fmt.Errorf("DeviceClass %s sets extendedResourceCapacityRequests, but the DRAExtendedResourceCapacity feature gate is disabled in kube-scheduler", class.Name)
				}
			}
		}
`).in("func (pl *DynamicResources) bindClaim(")},
		},
		{
			Name:    "init-containers-without-capacity",
			Mistake: "scheduler gives the capacity to long-lived containers' requests but not to the request of an init container that needs more devices than they do",
			Edits: []Edit{replace(Kubernetes, extendedDRA,
				"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, longLivedResourceRequests[i:])",
				"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, nil, longLivedResourceRequests[i:])",
			).in("func createRequestsAndMappings(")},
		},
		{
			Name:    "sidecars-without-capacity",
			Mistake: "scheduler treats only regular containers as long-lived consumers of the capacity: a sidecar (an init container with restartPolicy Always) gets a whole-device request",
			Edits: []Edit{replace(Kubernetes, extendedDRA,
				"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, nil)",
				"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, mutantSidecarCapacity(i, len(pod.Spec.InitContainers), classCapacity), nil)",
			).in("func createRequestsAndMappings("),
				before(Kubernetes, extendedDRA, "func createRequestsAndMappings(", `// mutantSidecarCapacity withholds the capacity from containers listed
// among the init containers, which for long-lived ones are the sidecars.
func mutantSidecarCapacity(index, numInit int, capacity *resourceapi.CapacityRequirements) *resourceapi.CapacityRequirements {
	if index < numInit {
		return nil
	}
	return capacity
}

`)},
		},
		{
			Name:    "copies-one-capacity-key",
			Mistake: "scheduler copies one entry of a class's capacity requests (the first name in sorted order): a class asking for bandwidth and queues gets requests for bandwidth only, and the allocation takes every queue",
			Edits: []Edit{
				replace(Kubernetes, extendedDRA, "\t\t\tCapacity:        capacity.DeepCopy(),\n", "\t\t\tCapacity:        mutantFirstCapacity(capacity),\n").
					in("func createResourceRequestAndMappings("),
				before(Kubernetes, extendedDRA, "func createRequestsAndMappings(", `// mutantFirstCapacity copies the class's capacity requests as if a class
// named one capacity: the first name, in sorted order.
func mutantFirstCapacity(capacity *resourceapi.CapacityRequirements) *resourceapi.CapacityRequirements {
	if capacity == nil || len(capacity.Requests) == 0 {
		return capacity.DeepCopy()
	}
	names := make([]string, 0, len(capacity.Requests))
	for name := range capacity.Requests {
		names = append(names, string(name))
	}
	slices.Sort(names)
	first := resourceapi.QualifiedName(names[0])
	return &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{first: capacity.Requests[first].DeepCopy()}}
}

`),
			},
		},
		{
			Name:    "retry-loses-capacity",
			Mistake: "scheduler keeps each pod's first synthesized requests in a cache that predates the field (class, count) and reuses them on later attempts: a pod that was unschedulable at first is scheduled with whole-device requests",
			Edits:   retryLosesCapacity(),
		},
		{
			Name:    "first-request-only",
			Mistake: "scheduler sets the class's capacity on the first request it builds for an extended resource only: when a second container of the pod asks for the same resource, its request takes a whole device",
			Edits: []Edit{
				replace(Kubernetes, extendedDRA, "createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, nil)",
					"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, nil, nil)").in("func createRequestsAndMappings("),
				replace(Kubernetes, extendedDRA, "createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, longLivedResourceRequests[i:])",
					"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, nil, longLivedResourceRequests[i:])").in("func createRequestsAndMappings("),
				before(Kubernetes, extendedDRA, "\t\t// append non-nil requests\n", "\t\tmutantFirstOfResource := len(deviceRequests)\n").
					in("func createRequestsAndMappings("),
				before(Kubernetes, extendedDRA, "\t\t// append mappings\n", `		// mutant: the class's capacity goes on the resource's request, the first one.
		if len(deviceRequests) > mutantFirstOfResource {
			deviceRequests[mutantFirstOfResource].Exactly.Capacity = classCapacity.DeepCopy()
		}
`).in("func createRequestsAndMappings("),
			},
		},
		{
			Name:    "no-capacity-above-count-one",
			Mistake: "scheduler sets the capacity only on requests for one device: a container asking for 3 gets a request for 3 whole devices",
			Edits: []Edit{
				replace(Kubernetes, extendedDRA, "\t\t\tCapacity:        capacity.DeepCopy(),\n", "\t\t\tCapacity:        mutantSingleDeviceCapacity(crq-sum, capacity),\n").
					in("func createResourceRequestAndMappings("),
				before(Kubernetes, extendedDRA, "func createRequestsAndMappings(", `// mutantSingleDeviceCapacity reads "If Count > 1, the request fails if
// there aren't enough devices" as a reason to leave Count > 1 alone.
func mutantSingleDeviceCapacity(count int64, capacity *resourceapi.CapacityRequirements) *resourceapi.CapacityRequirements {
	if count > 1 {
		return nil
	}
	return capacity.DeepCopy()
}

`),
			},
		},
		{
			Name:    "older-class-wins",
			Mistake: "scheduler maps an extended resource that two classes name to the older class (KEP-5004: the newest), so pods get the capacity of the class being migrated away from",
			Edits: []Edit{replace(DRA, extendedResourceCache, "\t\tcase 1:\n\t\t\twinner = class\n", "\t\tcase -1:\n\t\t\twinner = class\n").
				in("func (c *ExtendedResourceCache) recomputeExplicitWinner(")},
		},
		{
			Name:       "no-deep-copy",
			Mistake:    "scheduler puts the class's own CapacityRequirements into the synthesized request instead of a deep copy",
			Equivalent: "in v1.37.2 nothing writes through the shared pointer: informers replace a cached class instead of changing it, the allocator only reads request capacity, and the claim is deep-copied before it is created (createExtendedResourceClaimInAPI)",
			Edits: []Edit{replace(Kubernetes, extendedDRA, "\t\t\tCapacity:        capacity.DeepCopy(),\n", "\t\t\tCapacity:        capacity,\n").
				in("func createResourceRequestAndMappings(")},
		},
		{
			Name:    "no-drop-on-disable",
			Mistake: "API server keeps the field on create and update when its gate is off",
			Edits:   []Edit{keepWhenDisabled()},
		},
		{
			Name:    "rejects-field-gate-off",
			Mistake: "API server with its gate off rejects a class that sets the field, as it rejects it without DRAConsumableCapacity, instead of dropping it",
			Edits: []Edit{
				keepWhenDisabled(),
				after(Kubernetes, resourceValidation, "\t\tallErrs = append(allErrs, field.Forbidden(fldPath, \"requires the DRAConsumableCapacity feature gate\"))\n\t}\n",
					`	if !utilfeature.DefaultFeatureGate.Enabled(features.DRAExtendedResourceCapacity) {
		allErrs = append(allErrs, field.Forbidden(fldPath, "requires the DRAExtendedResourceCapacity feature gate"))
	}
`).in("func validateExtendedResourceCapacityRequests("),
			},
		},
		{
			Name:    "hides-instead-of-drops",
			Mistake: "API server with its gate off stores the field but hides it from readers: it comes back when the gate is turned on again",
			Edits: []Edit{
				keepWhenDisabled(),
				after(Kubernetes, deviceClassStorage, "\t\"k8s.io/kubernetes/pkg/apis/resource\"\n",
					"\tutilfeature \"k8s.io/apiserver/pkg/util/feature\"\n\t\"k8s.io/kubernetes/pkg/features\"\n"),
				after(Kubernetes, deviceClassStorage, "\t\tReturnDeletedObject: true,\n", "\t\tDecorator:           hideDisabledCapacityRequests,\n").
					in("func NewREST("),
				before(Kubernetes, deviceClassStorage, "// NewREST returns", `// hideDisabledCapacityRequests is the mutant's read-side "drop".
func hideDisabledCapacityRequests(obj runtime.Object) {
	if utilfeature.DefaultFeatureGate.Enabled(features.DRAExtendedResourceCapacity) {
		return
	}
	switch o := obj.(type) {
	case *resource.DeviceClass:
		o.Spec.ExtendedResourceCapacityRequests = nil
	case *resource.DeviceClassList:
		for i := range o.Items {
			o.Items[i].Spec.ExtendedResourceCapacityRequests = nil
		}
	}
}

`),
			},
		},
		{
			Name:    "without-consumable-capacity",
			Mistake: "API server accepts the field with DRAConsumableCapacity off: the gate does not depend on it and validation does not check it",
			Edits: []Edit{
				replace(Kubernetes, kubeFeatures, "\tDRAExtendedResourceCapacity: {DRAConsumableCapacity, DRAExtendedResource},\n",
					"\tDRAExtendedResourceCapacity: {DRAExtendedResource},\n"),
				replace(Kubernetes, resourceValidation, "\tif !utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity) {\n\t\tallErrs = append(allErrs, field.Forbidden(fldPath, \"requires the DRAConsumableCapacity feature gate\"))\n\t}\n", "").
					in("func validateExtendedResourceCapacityRequests("),
			},
		},
		{
			Name:    "accepts-unqualified-key",
			Mistake: "API server accepts any string as a capacity name",
			Edits: []Edit{replace(Kubernetes, resourceValidation, "attributeAndCapacityMaxKeyLength, validateQualifiedNameOneSlash,",
				"attributeAndCapacityMaxKeyLength, func(resource.QualifiedName, *field.Path) field.ErrorList { return nil },").
				in("func validateExtendedResourceCapacityRequests(")},
		},
		{
			Name:    "accepts-zero",
			Mistake: "API server accepts a zero quantity",
			Edits:   []Edit{quantityCheck("if quantity.Sign() < 0 {")},
		},
		{
			Name:    "accepts-negative",
			Mistake: "API server accepts a negative quantity",
			Edits:   []Edit{quantityCheck("if quantity.Sign() == 0 {")},
		},
		{
			Name:    "validates-create-only",
			Mistake: "API server validates the field when a class is created, not when it is updated",
			Edits: []Edit{replace(Kubernetes, resourceValidation, "\tif spec.ExtendedResourceCapacityRequests != nil {\n\t\tvar oldRequests",
				"\tif spec.ExtendedResourceCapacityRequests != nil && oldSpec == nil {\n\t\tvar oldRequests").in("func validateDeviceClassSpec(")},
		},
	}, append(append(append(allocatorMutants(), metricsMutants()...), schedulerExtraMutants()...), validationExtraMutants()...)...)
}

func noSkewGuard() Edit {
	return replace(Kubernetes, extendedDRA, "\t\tif class.Spec.ExtendedResourceCapacityRequests != nil && !enableExtendedResourceCapacity {\n",
		"\t\tif mutantGuard := false; mutantGuard && class.Spec.ExtendedResourceCapacityRequests != nil && !enableExtendedResourceCapacity {\n",
	).in("func createRequestsAndMappings(")
}

func keepWhenDisabled() Edit {
	return replace(Kubernetes, deviceClassStrategy, "\tnewClass.Spec.ExtendedResourceCapacityRequests = nil\n", "\t_ = newClass // mutant: nothing is dropped\n").
		in("func dropDisabledDRAExtendedResourceCapacityFields(")
}

func quantityCheck(check string) Edit {
	return replace(Kubernetes, resourceValidation, "if quantity.Sign() <= 0 {", check).in("func validateExtendedResourceCapacityRequests(")
}

// LookupMutant finds a mutant, or a variant (see Variants), by name.
func LookupMutant(name string) (Mutant, error) {
	var names []string
	for _, m := range append(Mutants(), Variants()...) {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return Mutant{}, fmt.Errorf("unknown prototype mutant %q (one of: %s)", name, strings.Join(names, ", "))
}

// retryLosesCapacity caches, per pod, the requests of its first scheduling
// attempt in the shape a KEP-5004 request had (class and count), and
// reuses them in every later cycle: the first attempt is right, a retry
// (after a slice or a node appeared) synthesizes requests without capacity.
func retryLosesCapacity() []Edit {
	return []Edit{
		after(Kubernetes, extendedDRA, "\t\"sort\"\n", "\t\"sync\"\n"),
		replace(Kubernetes, extendedDRA, "\tnodeExtendedResourceClaim.Spec.Devices.Requests = reqs\n",
			"\tnodeExtendedResourceClaim.Spec.Devices.Requests = mutantReuseRequests(pod, state, reqs)\n").
			in("func (pl *DynamicResources) filterExtendedResources("),
		before(Kubernetes, extendedDRA, "func createRequestsAndMappings(", `// mutantCachedRequest is what the cache keeps of a synthesized request.
type mutantCachedRequest struct {
	name, className string
	count           int64
}

// mutantRequestCache holds each pod's requests from its first scheduling
// cycle, so that retries need not resolve the classes again.
var mutantRequestCache = struct {
	sync.Mutex
	cycle map[types.UID]*stateData
	reqs  map[types.UID][]mutantCachedRequest
}{cycle: map[types.UID]*stateData{}, reqs: map[types.UID][]mutantCachedRequest{}}

// mutantReuseRequests returns reqs in the pod's first cycle, and the cached
// requests, rebuilt from class and count, in any later one.
func mutantReuseRequests(pod *v1.Pod, cycle *stateData, reqs []resourceapi.DeviceRequest) []resourceapi.DeviceRequest {
	mutantRequestCache.Lock()
	defer mutantRequestCache.Unlock()
	first, seen := mutantRequestCache.cycle[pod.UID]
	if !seen {
		var cached []mutantCachedRequest
		for _, r := range reqs {
			cached = append(cached, mutantCachedRequest{name: r.Name, className: r.Exactly.DeviceClassName, count: r.Exactly.Count})
		}
		mutantRequestCache.cycle[pod.UID] = cycle
		mutantRequestCache.reqs[pod.UID] = cached
		return reqs
	}
	if first == cycle {
		return reqs
	}
	var out []resourceapi.DeviceRequest
	for _, r := range mutantRequestCache.reqs[pod.UID] {
		out = append(out, resourceapi.DeviceRequest{
			Name: r.name,
			Exactly: &resourceapi.ExactDeviceRequest{
				DeviceClassName: r.className,
				AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
				Count:           r.count,
			},
		})
	}
	return out
}

`),
	}
}

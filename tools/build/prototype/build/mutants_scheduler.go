package build

// schedulerPlugin is kube-scheduler's DynamicResources plugin, where the
// synthesized claim is created in the API.
const schedulerPlugin = "pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go"

// fieldCopyMutants are mistakes in how the scheduler reads a class's field
// and copies it onto the requests it synthesizes: from a class as it was
// before an update, never, for one of the resource's two names only, or
// folded into one request.
func fieldCopyMutants() []Mutant {
	return []Mutant{
		{
			Name:    "without-cache-fix",
			Mistake: "scheduler without the backported extended-resource cache fix: it keeps reading a class as it was before an update, until it restarts",
			Omit:    cacheFixEdits().Name,
		},
		{
			Name:    "scheduler-ignores-field",
			Mistake: "scheduler ignores the field: KEP-5004 whole-device requests with the gate on",
			Edits: []Edit{createRequests().replace("\t\t\tclassCapacity = class.Spec.ExtendedResourceCapacityRequests\n",
				"\t\t\t_ = class // mutant: the capacity requests are never read\n")},
		},
		{
			Name:    "implicit-name-only",
			Mistake: "scheduler applies the capacity only when the pod uses the implicit deviceclass.resource.kubernetes.io/<class> name",
			Edits: []Edit{createRequests().replace("\t\t\tclassCapacity = class.Spec.ExtendedResourceCapacityRequests\n",
				`			if resource == v1.ResourceName(resourceapi.ResourceDeviceClassPrefix+class.Name) {
				classCapacity = class.Spec.ExtendedResourceCapacityRequests
			}
`)},
		},
		{
			Name:    "multiplies-count",
			Mistake: "scheduler multiplies: one allocation of Count × each amount instead of Count allocations of the amount",
			Edits: []Edit{
				createRequest().replace("\t\t\tCount:           crq - sum, // the extra devices to request\n\t\t\tCapacity:        capacity.DeepCopy(),\n",
					"\t\t\tCount:           mutantCount(crq-sum, capacity),\n\t\t\tCapacity:        mutantCapacity(crq-sum, capacity),\n",
				),
				schedulerHelper(`// mutantCount and mutantCapacity fold Count shares into one request.
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
	}
}

// skewGuardMutants are mistakes of the skew guard: with its own gate off,
// kube-scheduler must leave a pod whose class sets the field unschedulable,
// create no claim for it, and not fall back to whole-device requests.
func skewGuardMutants() []Mutant {
	return []Mutant{
		{
			Name:    "no-skew-guard",
			Mistake: "scheduler with its gate off silently falls back to whole-device requests for a class that sets the field",
			Edits:   []Edit{noSkewGuard()},
		},
		{
			Name:    "scheduler-ignores-its-gate",
			Mistake: "scheduler copies the field whatever its own gate says",
			Edits: []Edit{noSkewGuard(), createRequests().replace("\t\tif enableExtendedResourceCapacity {\n\t\t\tclassCapacity = ",
				"\t\tif true {\n\t\t\tclassCapacity = ")},
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
	}
}

// containerKindMutants give the capacity to the requests of some kinds of
// container and not others.
func containerKindMutants() []Mutant {
	return []Mutant{
		{
			Name:    "init-containers-without-capacity",
			Mistake: "scheduler gives the capacity to long-lived containers' requests but not to the request of an init container that needs more devices than they do",
			Edits: []Edit{createRequests().replace("createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, longLivedResourceRequests[i:])",
				"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, nil, longLivedResourceRequests[i:])",
			)},
		},
		{
			Name:    "sidecars-without-capacity",
			Mistake: "scheduler treats only regular containers as long-lived consumers of the capacity: a sidecar (an init container with restartPolicy Always) gets a whole-device request",
			Edits: []Edit{createRequests().replace("createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, nil)",
				"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, mutantSidecarCapacity(i, len(pod.Spec.InitContainers), classCapacity), nil)",
			),
				schedulerHelper(`// mutantSidecarCapacity withholds the capacity from containers listed
// among the init containers, which for long-lived ones are the sidecars.
func mutantSidecarCapacity(index, numInit int, capacity *resourceapi.CapacityRequirements) *resourceapi.CapacityRequirements {
	if index < numInit {
		return nil
	}
	return capacity
}

`)},
		},
	}
}

// partialCopyMutants copy the class's capacity, but not all of it or not
// onto every request: one capacity name, the first scheduling attempt, the
// first request for a resource, requests for one device.
func partialCopyMutants() []Mutant {
	return []Mutant{
		{
			Name:    "copies-one-capacity-key",
			Mistake: "scheduler copies one entry of a class's capacity requests (the first name in sorted order): a class asking for bandwidth and queues gets requests for bandwidth only, and the allocation takes every queue",
			Edits:   copiesOneCapacityKey(),
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
				createRequests().replace("createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, nil)",
					"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, nil, nil)"),
				createRequests().replace("createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, longLivedResourceRequests[i:])",
					"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, nil, longLivedResourceRequests[i:])"),
				createRequests().before("\t\t// append non-nil requests\n", "\t\tmutantFirstOfResource := len(deviceRequests)\n"),
				createRequests().before("\t\t// append mappings\n", `		// mutant: the class's capacity goes on the resource's request, the first one.
		if len(deviceRequests) > mutantFirstOfResource {
			deviceRequests[mutantFirstOfResource].Exactly.Capacity = classCapacity.DeepCopy()
		}
`),
			},
		},
		{
			Name:    "no-capacity-above-count-one",
			Mistake: "scheduler sets the capacity only on requests for one device: a container asking for 3 gets a request for 3 whole devices",
			Edits: []Edit{
				createRequest().replace("\t\t\tCapacity:        capacity.DeepCopy(),\n", "\t\t\tCapacity:        mutantSingleDeviceCapacity(crq-sum, capacity),\n"),
				schedulerHelper(`// mutantSingleDeviceCapacity reads "If Count > 1, the request fails if
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
	}
}

// capacitySourceMutants take the capacity from the wrong class, or hand out
// the class's own object.
func capacitySourceMutants() []Mutant {
	return []Mutant{
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
			Edits:      []Edit{createRequest().replace("\t\t\tCapacity:        capacity.DeepCopy(),\n", "\t\t\tCapacity:        capacity,\n")},
		},
	}
}

func noSkewGuard() Edit {
	return createRequests().replace("\t\tif class.Spec.ExtendedResourceCapacityRequests != nil && !enableExtendedResourceCapacity {\n",
		"\t\tif mutantGuard := false; mutantGuard && class.Spec.ExtendedResourceCapacityRequests != nil && !enableExtendedResourceCapacity {\n",
	)
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
		schedulerHelper(`// mutantCachedRequest is what the cache keeps of a synthesized request.
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

// copiesOneCapacityKey copies the first of a class's capacity names only.
func copiesOneCapacityKey() []Edit {
	return []Edit{
		createRequest().replace("\t\t\tCapacity:        capacity.DeepCopy(),\n", "\t\t\tCapacity:        mutantFirstCapacity(capacity),\n"),
		schedulerHelper(`// mutantFirstCapacity copies the class's capacity requests as if a class
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
	}
}

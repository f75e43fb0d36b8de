package build

// reachMutants are mistakes about where the field reaches: the capacity of
// a class applied to claims the scheduler did not synthesize, the skew
// guard kept to one of a class's names, the field validated only on a class
// that names an extended resource; and mistakes the suite already catches,
// kept as mutants so that a later change cannot lose the catch silently: an
// update that keeps or drops the field, a share counted twice, requests
// named otherwise. Each came from a read of the checks as an implementer
// looking for a way through.
func reachMutants() []Mutant {
	return []Mutant{
		{
			Name:    "update-keeps-old-value",
			Mistake: "API server with its gate on keeps the stored extendedResourceCapacityRequests on an update that changes it: a class's share cannot be changed or removed",
			Edits:   []Edit{onUpdate("\t\t\tnewClass.Spec.ExtendedResourceCapacityRequests = oldClass.Spec.ExtendedResourceCapacityRequests // mutant: an update keeps what is stored\n")},
		},
		{
			Name:    "update-drops-field",
			Mistake: "API server with its gate on drops extendedResourceCapacityRequests on every update: a class keeps its share only until it is next written",
			Edits:   []Edit{onUpdate("\t\t\tnewClass.Spec.ExtendedResourceCapacityRequests = nil // mutant: an update drops the field\n")},
		},
		{
			Name:    "shares-counted-twice",
			Mistake: "allocator counts a request's share twice against the device's capacity: two 2-share pods no longer fit a 4-share device",
			Edits:   []Edit{shareCountedTwice(incubatingCapacity), shareCountedTwice(experimentalCapacity)},
		},
		{
			Name:    "request-named-otherwise",
			Mistake: "scheduler names the requests it synthesizes otherwise than KEP-5004 does (container-N-req-M): the names the pod's status maps, and tools read, change",
			Edits: []Edit{replace(Kubernetes, extendedDRA, `	reqName := fmt.Sprintf("container-%d-request-%d", containerIndex, ridx)`,
				`	reqName := fmt.Sprintf("container-%d-req-%d", containerIndex, ridx) // mutant: another name`)},
		},
		{
			Name: "class-capacity-reaches-hand-written-claims",
			Mistake: "allocator gives the class's extendedResourceCapacityRequests to any exact request of that class that asks for no capacity: " +
				"a user's own claim for a whole device gets one share",
			Edits: []Edit{classCapacityLeak(incubatingAllocator), classCapacityLeak(experimentalAllocator)},
		},
		{
			Name:    "skew-guard-explicit-name-only",
			Mistake: "scheduler with its gate off refuses a class that sets the field only for pods of its explicit extendedResourceName: pods of the implicit name get whole devices",
			Edits: []Edit{createRequests().replace("\t\tif class.Spec.ExtendedResourceCapacityRequests != nil && !enableExtendedResourceCapacity {\n",
				"\t\tif class.Spec.ExtendedResourceCapacityRequests != nil && !enableExtendedResourceCapacity && class.Spec.ExtendedResourceName != nil && v1.ResourceName(*class.Spec.ExtendedResourceName) == resource { // mutant: the explicit name only\n",
			)},
		},
		{
			Name:    "validates-named-classes-only",
			Mistake: "API server validates the field only on a class that sets extendedResourceName: a class without one stores shares: \"-1\"",
			Edits: []Edit{replace(Kubernetes, resourceValidation, "\tif spec.ExtendedResourceCapacityRequests != nil {\n\t\tvar oldRequests",
				"\tif spec.ExtendedResourceCapacityRequests != nil && spec.ExtendedResourceName != nil { // mutant: named classes only\n\t\tvar oldRequests",
			).in("func validateDeviceClassSpec(")},
		},
	}
}

// classCapacityLeak gives the allocator the mistake of
// class-capacity-reaches-hand-written-claims in one of its copies.
func classCapacityLeak(file string) Edit {
	return after(DRA, file, "\trequestData.class = class\n", `	// mutant: a request of a class that sets extendedResourceCapacityRequests,
	// asking for no capacity of its own, is given the class's.
	if r, ok := request.(*exactDeviceRequestAccessor); ok && r.request.Exactly != nil && r.request.Exactly.Capacity == nil && class.Spec.ExtendedResourceCapacityRequests != nil {
		r.request = r.request.DeepCopy()
		r.request.Exactly.Capacity = class.Spec.ExtendedResourceCapacityRequests.DeepCopy()
	}
`).in("func (alloc *allocator) validateDeviceRequest(")
}

// shareCountedTwice counts a share twice in one of the allocator's copies.
func shareCountedTwice(file string) Edit {
	return after(DRA, file, "\t\tif _, allocatedFound := clone[name]; allocatedFound {\n\t\t\tclone[name].Add(consumedCapacity)\n\t\t} else {\n\t\t\tclone[name] = ptr.To(consumedCapacity.DeepCopy())\n\t\t}\n",
		"\t\tclone[name].Add(consumedCapacity) // mutant: the share is counted twice\n").in("func CmpRequestOverCapacity(")
}

// onUpdate makes an update with the gate on do body to the new class.
func onUpdate(body string) Edit {
	return replace(Kubernetes, deviceClassStrategy, "\tif utilfeature.DefaultFeatureGate.Enabled(features.DRAExtendedResourceCapacity) {\n\t\treturn\n\t}\n",
		"\tif utilfeature.DefaultFeatureGate.Enabled(features.DRAExtendedResourceCapacity) {\n\t\tif oldClass != nil {\n"+body+"\t\t}\n\t\treturn\n\t}\n",
	).in("func dropDisabledDRAExtendedResourceCapacityFields(")
}

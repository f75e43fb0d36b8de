package build

// reachMutants are mistakes about where the field reaches: the capacity of
// a class applied to claims the scheduler did not synthesize, the skew
// guard kept to one of a class's names, the field validated only on a class
// that names an extended resource. Each came from a read of the checks as
// an implementer looking for a way through.
func reachMutants() []Mutant {
	leak := func(file string) Edit {
		return after(DRA, file, "\trequestData.class = class\n", `	// mutant: a request of a class that sets extendedResourceCapacityRequests,
	// asking for no capacity of its own, is given the class's.
	if r, ok := request.(*exactDeviceRequestAccessor); ok && r.request.Exactly != nil && r.request.Exactly.Capacity == nil && class.Spec.ExtendedResourceCapacityRequests != nil {
		r.request = r.request.DeepCopy()
		r.request.Exactly.Capacity = class.Spec.ExtendedResourceCapacityRequests.DeepCopy()
	}
`).in("func (alloc *allocator) validateDeviceRequest(")
	}
	return []Mutant{
		{
			Name: "class-capacity-reaches-hand-written-claims",
			Mistake: "allocator gives the class's extendedResourceCapacityRequests to any exact request of that class that asks for no capacity: " +
				"a user's own claim for a whole device gets one share",
			Edits: []Edit{leak(incubatingAllocator), leak(experimentalAllocator)},
		},
		{
			Name:    "skew-guard-explicit-name-only",
			Mistake: "scheduler with its gate off refuses a class that sets the field only for pods of its explicit extendedResourceName: pods of the implicit name get whole devices",
			Edits: []Edit{replace(Kubernetes, extendedDRA, "\t\tif class.Spec.ExtendedResourceCapacityRequests != nil && !enableExtendedResourceCapacity {\n",
				"\t\tif class.Spec.ExtendedResourceCapacityRequests != nil && !enableExtendedResourceCapacity && class.Spec.ExtendedResourceName != nil && v1.ResourceName(*class.Spec.ExtendedResourceName) == resource { // mutant: the explicit name only\n",
			).in("func createRequestsAndMappings(")},
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

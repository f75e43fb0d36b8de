package build

// validationExtraMutants are mistakes of the API server's side that the
// create path alone does not show: drop-on-disable that only runs for new
// objects, and a capacity map without v1.38's size limit.
func validationExtraMutants() []Mutant {
	return []Mutant{
		{
			Name: "update-path-does-not-drop",
			Mistake: "API server with its gate off drops the field when a class is created, but keeps it on every update, " +
				"so an update adds it to a class that never had it",
			Edits: []Edit{replace(Kubernetes, deviceClassStrategy,
				"\tif oldClass != nil && oldClass.Spec.ExtendedResourceCapacityRequests != nil {\n",
				"\tif oldClass != nil { // mutant: any update keeps what it writes\n",
			).in("func dropDisabledDRAExtendedResourceCapacityFields(")},
		},
		{
			Name:    "no-capacity-name-limit",
			Mistake: "API server accepts any number of capacity names, without the limit of 32 that v1.38 puts on every CapacityRequirements",
			Edits: []Edit{replace(Kubernetes, resourceValidation,
				"validateMap(requests.Requests, 32, attributeAndCapacityMaxKeyLength,",
				"validateMap(requests.Requests, -1, attributeAndCapacityMaxKeyLength,",
			).in("func validateExtendedResourceCapacityRequests(")},
		},
	}
}

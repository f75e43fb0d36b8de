package build

// validationExtraMutants are mistakes of the API server's side that the
// create path alone does not show: drop-on-disable that only runs for new
// objects. (A capacity map without v1.38's size limit was a mutant until
// register entry R25 was found open; the validation-v1.37.2 variant has
// none.)
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
	}
}

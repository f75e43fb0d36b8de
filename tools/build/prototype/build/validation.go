package build

const resourceValidation = "pkg/apis/resource/validation/validation.go"

func validationEdits() Group {
	return Group{Name: "validation", Edits: []Edit{
		// Validate the field where the rest of DeviceClassSpec is validated, on create and update.
		after(Kubernetes, resourceValidation,
			"\t\t\t\"must be a valid extended resource name\").MarkCoveredByDeclarative().WithOrigin(\"format=k8s-extended-resource-name\"))\n\t}\n",
			`	if spec.ExtendedResourceCapacityRequests != nil {
		var oldRequests *resource.CapacityRequirements
		if oldSpec != nil {
			oldRequests = oldSpec.ExtendedResourceCapacityRequests
		}
		allErrs = append(allErrs, validateExtendedResourceCapacityRequests(spec.ExtendedResourceCapacityRequests, oldRequests, fldPath.Child("extendedResourceCapacityRequests"))...)
	}
`).in("func validateDeviceClassSpec("),

		// Keys are capacity names, DRA's rule as v1.38.0-beta.0 enforces it for
		// claims (a C identifier with an optional domain, one slash at most);
		// values positive, as the KEP says; at least one entry and at most 32,
		// the limit v1.38.0-beta.0 puts on every CapacityRequirements
		// (+k8s:maxProperties=32); the field needs DRAConsumableCapacity.
		before(Kubernetes, resourceValidation, "func validateDeviceClassConfiguration(", capacityRequestsValidation),
	}}
}

// capacityRequestsValidation is the function validationEdits adds, in the
// API server's validation of DeviceClasses.
const capacityRequestsValidation = `// validateExtendedResourceCapacityRequests validates
// DeviceClassSpec.ExtendedResourceCapacityRequests (KEP-6406). A value that
// is unchanged on update is not validated again, so that a stored class stays
// updatable after a gate change.
func validateExtendedResourceCapacityRequests(requests, oldRequests *resource.CapacityRequirements, fldPath *field.Path) field.ErrorList {
	if oldRequests != nil && apiequality.Semantic.DeepEqual(requests, oldRequests) {
		return nil
	}
	var allErrs field.ErrorList
	if !utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity) {
		allErrs = append(allErrs, field.Forbidden(fldPath, "requires the DRAConsumableCapacity feature gate"))
	}
	if len(requests.Requests) == 0 {
		// The KEP's Goals speak of "one or more capacity name/quantity
		// pairs": an empty map declares no share, and storing it would
		// make the field "set" for the skew guard and drop-on-disable
		// while meaning nothing (docs/register.md).
		allErrs = append(allErrs, field.Required(fldPath.Child("requests"), "at least one capacity name and amount; leave extendedResourceCapacityRequests unset for the default consumption"))
	}
	allErrs = append(allErrs, validateMap(requests.Requests, 32, attributeAndCapacityMaxKeyLength, validateQualifiedNameOneSlash,
		func(quantity apiresource.Quantity, fldPath *field.Path) field.ErrorList {
			if quantity.Sign() <= 0 {
				return field.ErrorList{field.Invalid(fldPath, quantity.String(), "must be greater than zero")}
			}
			return nil
		}, fldPath.Child("requests"))...)
	return allErrs
}

// validateQualifiedNameOneSlash is validateQualifiedName as v1.38.0-beta.0
// has it, rejecting more than one slash ("a/b/c"), which v1.37.2 lets
// through. validateQualifiedName itself is left as it is, so that
// ResourceSlices are validated as before.
func validateQualifiedNameOneSlash(name resource.QualifiedName, fldPath *field.Path) field.ErrorList {
	if strings.Count(string(name), "/") > 1 {
		return field.ErrorList{field.Invalid(fldPath, string(name), "must not contain more than one slash")}
	}
	return validateQualifiedName(name, fldPath)
}

`

package build

import "slices"

const (
	resourceClaimTemplateStrategy = "pkg/registry/resource/resourceclaimtemplate/strategy.go"
	prioritySort                  = "pkg/scheduler/framework/plugins/queuesort/priority_sort.go"
	dynamicResources              = "pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go"
)

// Variants are builds of the prototype that are not broken: each does
// otherwise where the KEP leaves the choice open (Reading says why), or
// closes a gap of v1.37.2 the way a later Kubernetes release does. They are
// built like mutants (`prototype build -mutant NAME`, providers
// prototype-<name>) but are not in Mutants(): the suite must certify each
// on every claim it certifies the prototype on (the variants table of
// docs/mutation.md), and one it does not certify is a defect of the suite.
func Variants() []Mutant {
	return slices.Concat(readingVariants(), orderAndWordsVariants())
}

// readingVariants read the field otherwise where the KEP or a later release
// allows it: what is validated, dropped, and which of a class's names the
// capacity follows.
func readingVariants() []Mutant {
	return []Mutant{
		{
			Name:    "claim-capacity-validated",
			Mistake: "validates a hand-written claim's capacity requests as v1.38.0-beta.0 does",
			Reading: "R1: closes the gap v1.37.2 leaves, as a later release does",
			Edits:   claimCapacityValidationEdits(),
		},
		{
			// A mutant until register entry R3 was found open: the KEP's
			// Downgrade and PRR text say "dropped ... on next write", which
			// this does; the pattern it names keeps a field in use.
			Name:    "drops-field-in-use",
			Mistake: "API server with its gate off drops the field from a class that already has it, on the next update, as the KEP's Downgrade and PRR text literally say",
			Reading: "R3 (open): the Downgrade and PRR text against the drop-on-disable pattern the KEP names",
			Edits: []Edit{replace(Kubernetes, deviceClassStrategy, "\tif oldClass != nil && oldClass.Spec.ExtendedResourceCapacityRequests != nil {\n\t\treturn\n\t}\n", "").
				in("func dropDisabledDRAExtendedResourceCapacityFields(")},
		},
		{
			// A mutant until R4 was found open. Its skew guard still
			// refuses a resolved class that sets the field whatever name
			// resolved it, as Risks and Mitigations says.
			Name:    "explicit-name-only",
			Mistake: "scheduler applies the capacity only when the pod uses the class's explicit extendedResourceName, and gives pods of the implicit name the default consumption",
			Reading: "R4 (open): \"for that class's ExtendedResourceName\" (Summary, Goals) against \"every ExactDeviceRequest it synthesizes for this class\" (API)",
			Edits: []Edit{createRequests().replace("\t\t\tclassCapacity = class.Spec.ExtendedResourceCapacityRequests\n",
				`			if class.Spec.ExtendedResourceName != nil && v1.ResourceName(*class.Spec.ExtendedResourceName) == resource {
				classCapacity = class.Spec.ExtendedResourceCapacityRequests
			}
`)},
		},
		{
			Name: "validation-v1.37.2",
			Mistake: "API server validates the field with v1.37.2's own rules, unchanged: v1.37.2's validateQualifiedName for names (\"a/b/c\" accepted), " +
				"zero accepted and only negative amounts refused, no limit on the number of names, an empty map accepted, v1.37.2's messages",
			Reading: "Validation: \"reuses the existing validation ... unchanged. No new validation code is introduced\" (R1, R16, R22, R23)",
			Edits:   v137ValidationEdits(),
		},
	}
}

// orderAndWordsVariants choose otherwise what no KEP sentence fixes: which
// of equal devices or pods comes first, and the words of a status or event.
func orderAndWordsVariants() []Mutant {
	return []Mutant{
		{
			Name:    "allocator-last-device",
			Mistake: "allocator tries a slice's devices last to first, so a pod gets the last device with room among equal ones, not the first",
			Reading: "Non-Goals: no change to \"the KEP-5075 allocation algorithm\"; which of equal devices a pod gets is promised nowhere",
			Edits:   lastDeviceEdits(),
		},
		{
			Name:    "queue-newest-first",
			Mistake: "scheduler's queue takes the newest pod first among pods of equal priority, so pods created together are bound in another order",
			Reading: "no KEP sentence orders pods; Integration tests promise only that pods fitting one device share it",
			Edits: []Edit{replace(Kubernetes, prioritySort, "(p1 == p2 && entity1.GetTimestamp().Before(entity2.GetTimestamp()))",
				"(p1 == p2 && entity2.GetTimestamp().Before(entity1.GetTimestamp()))").in("func (pl *PrioritySort) Less(")},
		},
		{
			Name:    "reworded-unschedulable",
			Mistake: "scheduler words the allocator's failure otherwise: \"no device has room for the claims of the pod\" instead of \"cannot allocate all claims\"",
			Reading: "R9, R22: the KEP asks for an explanatory status, never for its words",
			Edits: []Edit{replace(Kubernetes, dynamicResources, `statusUnschedulable(logger, "cannot allocate all claims",`,
				`statusUnschedulable(logger, "no device has room for the claims of the pod",`).in("func (pl *DynamicResources) Filter(")},
		},
		{
			Name:    "reworded-skew-event",
			Mistake: "scheduler with its gate off words the skew guard otherwise, naming the class and the field but not the gate",
			Reading: "R11 (open): the KEP asks for \"an explanatory event\" and names two remedies, not the words",
			Edits: []Edit{createRequests().replace(skewGuardMessage,
				`DeviceClass %s asks for a share of a device through extendedResourceCapacityRequests, which this kube-scheduler does not honour now`)},
		},
	}
}

// v137ValidationEdits turn the prototype's validation of the field into
// v1.37.2's, reused unchanged: the names as v1.37.2's validateQualifiedName
// checks a ResourceSlice's capacity names, the amounts only as far as the
// KEP's "positive" needs a check where v1.37.2 has none for requests (no
// negative amount, with v1.38's words for it), no limit on the names and no
// check of an empty map. The dependency on DRAConsumableCapacity stays: the
// KEP asks for it in so many words.
func v137ValidationEdits() []Edit {
	const in = "func validateExtendedResourceCapacityRequests("
	return []Edit{
		replace(Kubernetes, resourceValidation, "validateMap(requests.Requests, 32, attributeAndCapacityMaxKeyLength, validateQualifiedNameOneSlash,",
			"validateMap(requests.Requests, -1, attributeAndCapacityMaxKeyLength, validateQualifiedName,").in(in),
		replace(Kubernetes, resourceValidation, "\t\t\tif quantity.Sign() <= 0 {\n\t\t\t\treturn field.ErrorList{field.Invalid(fldPath, quantity.String(), \"must be greater than zero\")}\n",
			"\t\t\tif quantity.Sign() < 0 {\n\t\t\t\treturn field.ErrorList{field.Invalid(fldPath, quantity.String(), \"must be greater than or equal to 0\")}\n").in(in),
		replace(Kubernetes, resourceValidation, "\tif len(requests.Requests) == 0 {\n", "\tif false { // variant: an empty map is accepted, as CapacityRequirements accepts it\n").in(in),
	}
}

// lastDeviceEdits reverse each slice's devices as the allocator reads them,
// in each of its three implementations (which one kube-scheduler picks
// depends on the gates), so that first-fit takes the last device with room.
func lastDeviceEdits() []Edit {
	var out []Edit
	for _, file := range []string{"structured/internal/stable/pools_stable.go", "structured/internal/incubating/pools_incubating.go", "structured/internal/experimental/pools_experimental.go"} {
		out = append(out, after(DRA, file, "\tif err := draapi.Convert_v1_ResourceSlice_To_api_ResourceSlice(s, &slice, nil); err != nil {\n\t\treturn fmt.Errorf(\"convert ResourceSlice: %w\", err)\n\t}\n",
			"\t// variant: the devices last to first.\n\tfor i, j := 0, len(slice.Spec.Devices)-1; i < j; i, j = i+1, j-1 {\n\t\tslice.Spec.Devices[i], slice.Spec.Devices[j] = slice.Spec.Devices[j], slice.Spec.Devices[i]\n\t}\n").in("func addSlice("))
	}
	return out
}

// claimCapacityValidationEdits port the validation of
// CapacityRequirements.Requests in ResourceClaim and ResourceClaimTemplate
// specs from v1.38.0-beta.0 to v1.37.2 (docs/notes/v1.38-capacity-validation.md):
//   - the keys as v1.38's pkg/apis/resource/validation does by hand, with its
//     validateQualifiedName, which unlike v1.37.2's also rejects a second
//     slash (the ResourceSlice and DeviceClass validation keep v1.37.2's);
//   - the map size and the values as v1.38's declarative validation does
//     (+k8s:maxProperties=32, +k8s:eachVal=+k8s:minimum=0), which v1.37.2 has
//     no tags for;
//   - with v1.38's ratcheting: a claim's spec is validated on create only, a
//     template's also on update, where unchanged requests are accepted as
//     stored.
//
// The status's consumedCapacity, which v1.38 validates too, is left alone.
func claimCapacityValidationEdits() []Edit {
	return slices.Concat(claimOldSpecEdits(), claimRequestCapacityEdits(), claimCapacityCheckEdits(), claimTemplateUpdateEdits())
}

// claimOldSpecEdits let the old spec reach the requests: nil for a claim,
// the stored one for a template update.
func claimOldSpecEdits() []Edit {
	return []Edit{
		replace(Kubernetes, resourceValidation, `validateResourceClaimSpec(&resourceClaim.Spec, field.NewPath("spec"), false)`,
			`validateResourceClaimSpec(&resourceClaim.Spec, nil, field.NewPath("spec"), false)`).in("func ValidateResourceClaim("),
		replace(Kubernetes, resourceValidation, "func validateResourceClaimSpec(spec *resource.ResourceClaimSpec, fldPath *field.Path, stored bool) field.ErrorList {\n",
			`// validateResourceClaimSpec gets oldSpec only when a ResourceClaimTemplate is updated.
// Checks which were added after the spec could be stored must accept unchanged old
// values, because the spec is immutable and the user cannot fix them.
func validateResourceClaimSpec(spec, oldSpec *resource.ResourceClaimSpec, fldPath *field.Path, stored bool) field.ErrorList {
`),
		replace(Kubernetes, resourceValidation, `validateDeviceClaim(&spec.Devices, fldPath.Child("devices"), stored)`,
			`validateDeviceClaim(&spec.Devices, oldSpec, fldPath.Child("devices"), stored)`).in("func validateResourceClaimSpec("),
		replace(Kubernetes, resourceValidation, "func validateDeviceClaim(deviceClaim *resource.DeviceClaim, fldPath *field.Path, stored bool) field.ErrorList {\n",
			"func validateDeviceClaim(deviceClaim *resource.DeviceClaim, oldSpec *resource.ResourceClaimSpec, fldPath *field.Path, stored bool) field.ErrorList {\n"),
		replace(Kubernetes, resourceValidation, "return validateDeviceRequest(request, fldPath, opts)",
			"return validateDeviceRequest(request, oldDeviceRequest(oldSpec, request.Name), fldPath, opts)").in("func validateDeviceClaim("),
		before(Kubernetes, resourceValidation, "type requestNames map[string]sets.Set[string]\n", `func oldDeviceRequest(oldSpec *resource.ResourceClaimSpec, name string) *resource.DeviceRequest {
	if oldSpec == nil {
		return nil
	}
	for i := range oldSpec.Devices.Requests {
		if oldSpec.Devices.Requests[i].Name == name {
			return &oldSpec.Devices.Requests[i]
		}
	}
	return nil
}

func oldExactCapacity(oldRequest *resource.DeviceRequest) *resource.CapacityRequirements {
	if oldRequest == nil || oldRequest.Exactly == nil {
		return nil
	}
	return oldRequest.Exactly.Capacity
}

func oldSubRequestCapacity(oldRequest *resource.DeviceRequest, name string) *resource.CapacityRequirements {
	if oldRequest == nil {
		return nil
	}
	for i := range oldRequest.FirstAvailable {
		if oldRequest.FirstAvailable[i].Name == name {
			return oldRequest.FirstAvailable[i].Capacity
		}
	}
	return nil
}

`),
		replace(Kubernetes, resourceValidation, "func validateDeviceRequest(request resource.DeviceRequest, fldPath *field.Path, opts deviceValidationOptions) field.ErrorList {\n",
			"func validateDeviceRequest(request resource.DeviceRequest, oldRequest *resource.DeviceRequest, fldPath *field.Path, opts deviceValidationOptions) field.ErrorList {\n"),
		replace(Kubernetes, resourceValidation, "return validateDeviceSubRequest(subRequest, fldPath, opts, request.Name)",
			"return validateDeviceSubRequest(subRequest, oldSubRequestCapacity(oldRequest, subRequest.Name), fldPath, opts, request.Name)").in("func validateDeviceRequest("),
		replace(Kubernetes, resourceValidation, `validateExactDeviceRequest(*request.Exactly, fldPath.Child("exactly"), opts, request.Name)`,
			`validateExactDeviceRequest(*request.Exactly, oldExactCapacity(oldRequest), fldPath.Child("exactly"), opts, request.Name)`).in("func validateDeviceRequest("),
	}
}

// claimRequestCapacityEdits make both kinds of request check their capacity
// last, as in v1.38.
func claimRequestCapacityEdits() []Edit {
	tolerations := func(v string) string {
		return "\tfor i, toleration := range " + v + ".Tolerations {\n\t\tallErrs = append(allErrs, validateDeviceToleration(toleration, fldPath.Child(\"tolerations\").Index(i))...)\n\t}\n"
	}
	return []Edit{
		replace(Kubernetes, resourceValidation, "func validateDeviceSubRequest(subRequest resource.DeviceSubRequest, fldPath *field.Path, opts deviceValidationOptions, parentRequestName string) field.ErrorList {\n",
			"func validateDeviceSubRequest(subRequest resource.DeviceSubRequest, oldCapacity *resource.CapacityRequirements, fldPath *field.Path, opts deviceValidationOptions, parentRequestName string) field.ErrorList {\n"),
		after(Kubernetes, resourceValidation, tolerations("subRequest"),
			"\tallErrs = append(allErrs, validateCapacityRequirements(subRequest.Capacity, oldCapacity, fldPath.Child(\"capacity\"))...)\n").in("func validateDeviceSubRequest("),
		replace(Kubernetes, resourceValidation, "func validateExactDeviceRequest(request resource.ExactDeviceRequest, fldPath *field.Path, opts deviceValidationOptions, requestName string) field.ErrorList {\n",
			"func validateExactDeviceRequest(request resource.ExactDeviceRequest, oldCapacity *resource.CapacityRequirements, fldPath *field.Path, opts deviceValidationOptions, requestName string) field.ErrorList {\n"),
		after(Kubernetes, resourceValidation, tolerations("request"),
			"\tallErrs = append(allErrs, validateCapacityRequirements(request.Capacity, oldCapacity, fldPath.Child(\"capacity\"))...)\n").in("func validateExactDeviceRequest("),
	}
}

// claimCapacityCheckEdits add v1.38's validateCapacityRequirements and
// validateCapacityNames; the name and value checks it gets from elsewhere
// are written out here.
func claimCapacityCheckEdits() []Edit {
	return []Edit{
		before(Kubernetes, resourceValidation, "func validateDeviceAllocationMode(", `func validateCapacityRequirements(capacity, oldCapacity *resource.CapacityRequirements, fldPath *field.Path) field.ErrorList {
	if capacity == nil {
		return nil
	}
	// Capacity request names were not validated before, so stored names
	// which did not change remain valid.
	if oldCapacity != nil && apiequality.Semantic.DeepEqual(capacity.Requests, oldCapacity.Requests) {
		return nil
	}
	allErrs := validateCapacityNames(capacity.Requests, fldPath.Child("requests"))
	var oldRequests map[resource.QualifiedName]apiresource.Quantity
	if oldCapacity != nil {
		oldRequests = oldCapacity.Requests
	}
	return append(allErrs, validateCapacityRequestValues(capacity.Requests, oldRequests, fldPath.Child("requests"))...)
}

// validateCapacityNames only checks the keys, with validateQualifiedName as
// v1.38.0-beta.0 has it (validateQualifiedNameOneSlash, which the prototype
// adds for its own field).
func validateCapacityNames(capacities map[resource.QualifiedName]apiresource.Quantity, fldPath *field.Path) field.ErrorList {
	return validateMap(capacities, -1, attributeAndCapacityMaxKeyLength, validateQualifiedNameOneSlash,
		func(apiresource.Quantity, *field.Path) field.ErrorList { return nil }, fldPath)
}

// validateCapacityRequestValues does what the declarative validation of
// v1.38.0-beta.0 does for CapacityRequirements.Requests
// (+k8s:maxProperties=32, +k8s:eachVal=+k8s:minimum=0), with the same errors:
// more than 32 entries is the only error reported for the values, and a value
// which did not change is not checked again.
func validateCapacityRequestValues(capacities, oldCapacities map[resource.QualifiedName]apiresource.Quantity, fldPath *field.Path) field.ErrorList {
	if len(capacities) > 32 {
		return field.ErrorList{field.TooMany(fldPath, len(capacities), 32).WithOrigin("maxProperties")}
	}
	var allErrs field.ErrorList
	minimum := apiresource.MustParse("0")
	for name, quantity := range capacities {
		if old, ok := oldCapacities[name]; ok && apiequality.Semantic.DeepEqual(quantity, old) {
			continue
		}
		if quantity.Cmp(minimum) < 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Key(string(name)), quantity.String(), "must be greater than or equal to "+minimum.String()).WithOrigin("minimum"))
		}
	}
	return allErrs
}

`),
	}
}

// claimTemplateUpdateEdits validate templates again on update, against the
// stored spec, as in v1.38.
func claimTemplateUpdateEdits() []Edit {
	return []Edit{
		replace(Kubernetes, resourceValidation, "func ValidateResourceClaimTemplate(template *resource.ResourceClaimTemplate) field.ErrorList {\n",
			`func ValidateResourceClaimTemplate(template *resource.ResourceClaimTemplate) field.ErrorList {
	return validateResourceClaimTemplate(template, nil)
}

func validateResourceClaimTemplate(template *resource.ResourceClaimTemplate, oldSpec *resource.ResourceClaimSpec) field.ErrorList {
`),
		replace(Kubernetes, resourceValidation, `validateResourceClaimTemplateSpec(&template.Spec, field.NewPath("spec"), false)`,
			`validateResourceClaimTemplateSpec(&template.Spec, oldSpec, field.NewPath("spec"), false)`).in("func validateResourceClaimTemplate("),
		replace(Kubernetes, resourceValidation, "func validateResourceClaimTemplateSpec(spec *resource.ResourceClaimTemplateSpec, fldPath *field.Path, stored bool) field.ErrorList {\n",
			"func validateResourceClaimTemplateSpec(spec *resource.ResourceClaimTemplateSpec, oldSpec *resource.ResourceClaimSpec, fldPath *field.Path, stored bool) field.ErrorList {\n"),
		replace(Kubernetes, resourceValidation, `validateResourceClaimSpec(&spec.Spec, fldPath.Child("spec"), stored)`,
			`validateResourceClaimSpec(&spec.Spec, oldSpec, fldPath.Child("spec"), stored)`).in("func validateResourceClaimTemplateSpec("),
		replace(Kubernetes, resourceValidation, `	allErrs := corevalidation.ValidateObjectMetaUpdate(&template.ObjectMeta, &oldTemplate.ObjectMeta, field.NewPath("metadata"))
	// The spec is immutable. On update, we only check for immutability.
	// Re-validating other fields is skipped because the user cannot change them;
	// the only actionable error is for the immutability violation.
`, `	// Unlike for ResourceClaim, the spec gets validated again. Checks which were
	// added later must accept the old values, so the old spec is passed down.
	allErrs := validateResourceClaimTemplate(template, &oldTemplate.Spec.Spec)
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&template.ObjectMeta, &oldTemplate.ObjectMeta, field.NewPath("metadata"))...)
`).in("func ValidateResourceClaimTemplateUpdate("),
		replace(Kubernetes, resourceClaimTemplateStrategy, `	errorList := validation.ValidateResourceClaimTemplate(obj.(*resource.ResourceClaimTemplate))
	return append(errorList, validation.ValidateResourceClaimTemplateUpdate(obj.(*resource.ResourceClaimTemplate), old.(*resource.ResourceClaimTemplate))...)
`, `	return validation.ValidateResourceClaimTemplateUpdate(obj.(*resource.ResourceClaimTemplate), old.(*resource.ResourceClaimTemplate))
`).in("func (s *resourceClaimTemplateStrategy) ValidateUpdate("),
	}
}

package build

// deviceClassStorage is the API server's REST storage of DeviceClasses.
const deviceClassStorage = "pkg/registry/resource/deviceclass/storage/storage.go"

// dropOnDisableMutants are mistakes of the API server with its gate off,
// which must drop the field when a class is written: keep it, refuse it, or
// hide it from readers instead.
func dropOnDisableMutants() []Mutant {
	return []Mutant{
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
	}
}

// validationMutants are mistakes of the field's validation: its dependency
// on DRAConsumableCapacity, its names, its quantities, and updates.
func validationMutants() []Mutant {
	return []Mutant{
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
		// Accepting a zero amount was a mutant until register entry R24
		// was found open; the validation-v1.37.2 variant accepts it.
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
	}
}

func keepWhenDisabled() Edit {
	return replace(Kubernetes, deviceClassStrategy, "\tnewClass.Spec.ExtendedResourceCapacityRequests = nil\n", "\t_ = newClass // mutant: nothing is dropped\n").
		in("func dropDisabledDRAExtendedResourceCapacityFields(")
}

func quantityCheck(check string) Edit {
	return replace(Kubernetes, resourceValidation, "if quantity.Sign() <= 0 {", check).in("func validateExtendedResourceCapacityRequests(")
}

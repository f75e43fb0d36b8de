package build

const deviceClassStrategy = "pkg/registry/resource/deviceclass/strategy.go"

func strategyEdits() Group {
	return Group{Name: "deviceclass strategy", Edits: []Edit{
		// Drop-on-disable runs on create and update, next to the KEP-5004 field's.
		after(Kubernetes, deviceClassStrategy,
			"\tdropDisabledDRAExtendedResourceFields(newClass, oldClass)\n",
			"\tdropDisabledDRAExtendedResourceCapacityFields(newClass, oldClass)\n",
		).in("func dropDisabledFields("),

		// The standard pattern: with the gate off, drop the field unless the stored object already uses it.
		before(Kubernetes, deviceClassStrategy, "func draExtendedResourceFeatureInUse(", `func dropDisabledDRAExtendedResourceCapacityFields(newClass, oldClass *resource.DeviceClass) {
	if utilfeature.DefaultFeatureGate.Enabled(features.DRAExtendedResourceCapacity) {
		return
	}
	if oldClass != nil && oldClass.Spec.ExtendedResourceCapacityRequests != nil {
		return
	}
	newClass.Spec.ExtendedResourceCapacityRequests = nil
}

`),
	}}
}

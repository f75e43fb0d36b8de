package build

// The doc comment of the new field, as in the KEP's "API" section.
const capacityRequestsDoc = `
	// ExtendedResourceCapacityRequests, if set, defines the fixed capacity
	// amounts that the scheduler requests on every ResourceClaim it
	// synthesizes to satisfy ExtendedResourceName.
	//
	// Each key must be the name of a capacity advertised by the devices
	// selected by this class (see Device.Capacity in ResourceSlice), and
	// each value is the fixed amount requested for that capacity. The
	// scheduler copies this value, unmodified, onto the Capacity field of
	// every ExactDeviceRequest it synthesizes for this class, so it has
	// the exact same semantics as DeviceRequest.Capacity: it applies to
	// each device allocation, so a Count greater than one requests that
	// many independent allocations of this capacity amount, not a single
	// allocation of Count times this amount.
	//
	// Devices selected by a class using this field must advertise the
	// referenced capacity names. A class that does not select any such
	// devices will simply never satisfy its extended resource requests,
	// the same way an unsatisfiable selector does today.
	//
	// +optional
	// +featureGate=DRAExtendedResourceCapacity
`

// The deep copy of the new field; the same text serves k8s.io/api and the
// internal type, as deepcopy-gen would write it for both.
const capacityRequestsDeepCopy = `	if in.ExtendedResourceCapacityRequests != nil {
		in, out := &in.ExtendedResourceCapacityRequests, &out.ExtendedResourceCapacityRequests
		*out = new(CapacityRequirements)
		(*in).DeepCopyInto(*out)
	}
`

// The last statement of the generated DeepCopyInto of DeviceClassSpec, in
// k8s.io/api and in the internal package alike.
const extendedResourceNameDeepCopy = `	if in.ExtendedResourceName != nil {
		in, out := &in.ExtendedResourceName, &out.ExtendedResourceName
		*out = new(string)
		**out = **in
	}
`

func apiTypesEdits() Group {
	return Group{Name: "api types", Edits: []Edit{
		// The KEP-6406 field on the served v1 type, right after ExtendedResourceName; protobuf tag 5 is free (3 is tombstoned, 4 is extendedResourceName).
		after(API, "resource/v1/types.go",
			"\tExtendedResourceName *string `json:\"extendedResourceName,omitempty\" protobuf:\"bytes,4,opt,name=extendedResourceName\"`\n",
			capacityRequestsDoc+
				"\tExtendedResourceCapacityRequests *CapacityRequirements `json:\"extendedResourceCapacityRequests,omitempty\" protobuf:\"bytes,5,opt,name=extendedResourceCapacityRequests\"`\n",
		).in("type DeviceClassSpec struct {"),

		// v1 DeepCopyInto must copy the new pointer, or copies would share the map.
		after(API, "resource/v1/zz_generated.deepcopy.go", extendedResourceNameDeepCopy, capacityRequestsDeepCopy).
			in("func (in *DeviceClassSpec) DeepCopyInto(out *DeviceClassSpec) {"),

		// The internal type gets the same field at the same position, so internal and v1 DeviceClassSpec keep one memory layout.
		after(Kubernetes, "pkg/apis/resource/types.go",
			"\tExtendedResourceName *string\n",
			capacityRequestsDoc+"\tExtendedResourceCapacityRequests *CapacityRequirements\n",
		).in("type DeviceClassSpec struct {"),

		// Internal DeepCopyInto, same reason as for v1.
		after(Kubernetes, "pkg/apis/resource/zz_generated.deepcopy.go", extendedResourceNameDeepCopy, capacityRequestsDeepCopy).
			in("func (in *DeviceClassSpec) DeepCopyInto(out *DeviceClassSpec) {"),
	}}
}

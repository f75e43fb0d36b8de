package build

const generatedOpenAPI = "pkg/generated/openapi/zz_generated.openapi.go"

// The schema function the edits are confined to: several versions share the
// same property texts.
const v1DeviceClassSpecSchema = "func schema_k8sio_api_resource_v1_DeviceClassSpec(ref common.ReferenceCallback) common.OpenAPIDefinition {"

func openAPIEdits() Group {
	return Group{Name: "openapi", Edits: []Edit{
		// Server-side apply builds its type converter from this schema; without the property it fails with "field not declared in schema".
		before(Kubernetes, generatedOpenAPI, "\t\t\t\t\t\"extendedResourceName\": {\n",
			`					"extendedResourceCapacityRequests": {
						SchemaProps: spec.SchemaProps{
							Description: "ExtendedResourceCapacityRequests, if set, defines the fixed capacity amounts that the scheduler requests on every ResourceClaim it synthesizes to satisfy ExtendedResourceName.\n\nEach key must be the name of a capacity advertised by the devices selected by this class (see Device.Capacity in ResourceSlice), and each value is the fixed amount requested for that capacity. The scheduler copies this value, unmodified, onto the Capacity field of every ExactDeviceRequest it synthesizes for this class, so it has the exact same semantics as DeviceRequest.Capacity: it applies to each device allocation, so a Count greater than one requests that many independent allocations of this capacity amount, not a single allocation of Count times this amount.\n\nDevices selected by a class using this field must advertise the referenced capacity names. A class that does not select any such devices will simply never satisfy its extended resource requests, the same way an unsatisfiable selector does today.",
							Ref:         ref(resourcev1.CapacityRequirements{}.OpenAPIModelName()),
						},
					},
`).in(v1DeviceClassSpecSchema),

		// The referenced definition must be listed as a dependency of the schema.
		replace(Kubernetes, generatedOpenAPI,
			"\t\t\tresourcev1.DeviceClassConfiguration{}.OpenAPIModelName(), resourcev1.DeviceSelector{}.OpenAPIModelName()},\n",
			"\t\t\tresourcev1.CapacityRequirements{}.OpenAPIModelName(), resourcev1.DeviceClassConfiguration{}.OpenAPIModelName(), resourcev1.DeviceSelector{}.OpenAPIModelName()},\n",
		).in(v1DeviceClassSpecSchema),
	}}
}

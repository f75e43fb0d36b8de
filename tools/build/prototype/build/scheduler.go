package build

import "slices"

const (
	schedulerFeatures = "pkg/scheduler/framework/plugins/feature/feature.go"
	extendedDRA       = "pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go"
)

// skewGuardMessage is the status a pod gets when its class sets the field but
// the scheduler's own gate is off (KEP "Risks and Mitigations").
const skewGuardMessage = `DeviceClass %s sets extendedResourceCapacityRequests, but the DRAExtendedResourceCapacity feature gate is disabled in kube-scheduler`

// createRequests and createRequest are the two functions of kube-scheduler's
// extended-resource code where the prototype's edits, and most of its
// mutants', anchor.
func createRequests() site {
	return site{Kubernetes, extendedDRA, "func createRequestsAndMappings("}
}

func createRequest() site {
	return site{Kubernetes, extendedDRA, "func createResourceRequestAndMappings("}
}

// schedulerHelper adds a function of a mutant's own to kube-scheduler's
// extended-resource code, before createRequestsAndMappings.
func schedulerHelper(src string) Edit {
	return before(Kubernetes, extendedDRA, "func createRequestsAndMappings(", src)
}

func schedulerEdits() Group {
	return Group{Name: "scheduler", Edits: slices.Concat(schedulerGateEdits(), schedulerCapacityEdits())}
}

// schedulerGateEdits bring the scheduler's gate to the extended-resource
// code, where Filter turns the skew guard into the node's status.
func schedulerGateEdits() []Edit {
	return []Edit{
		// The plugins see gates only through this struct.
		after(Kubernetes, schedulerFeatures, "\tEnableDRAExtendedResource                          bool\n",
			"\tEnableDRAExtendedResourceCapacity                  bool\n",
		).in("type Features struct {"),

		// Populated from the scheduler's feature gate like every other DRA feature.
		after(Kubernetes, schedulerFeatures, "\t\tEnableDRAExtendedResource:                          featureGate.Enabled(features.DRAExtendedResource),\n",
			"\t\tEnableDRAExtendedResourceCapacity:                  featureGate.Enabled(features.DRAExtendedResourceCapacity),\n",
		).in("func NewSchedulerFeaturesFromGates("),

		// Filter passes the gate down and turns the skew guard into the node's status; nothing is staged, so no claim gets created.
		replace(Kubernetes, extendedDRA, "\treqs, mappings := createRequestsAndMappings(pod, extendedResources, logger, cache)\n",
			`	reqs, mappings, status := createRequestsAndMappings(pod, extendedResources, logger, cache, pl.fts.EnableDRAExtendedResourceCapacity)
	if status != nil {
		return nil, nil, status
	}
`).in("func (pl *DynamicResources) filterExtendedResources("),
	}
}

// schedulerCapacityEdits copy the resolved class's capacity requests onto
// the requests kube-scheduler synthesizes, or apply the skew guard.
func schedulerCapacityEdits() []Edit {
	return []Edit{
		// createRequestsAndMappings gets the gate and may now fail with a status.
		createRequests().replace("deviceClassMapping fwk.DeviceClassResolver) ([]resourceapi.DeviceRequest, []v1.ContainerExtendedResourceRequest) {\n",
			"deviceClassMapping fwk.DeviceClassResolver, enableExtendedResourceCapacity bool) ([]resourceapi.DeviceRequest, []v1.ContainerExtendedResourceRequest, *fwk.Status) {\n",
		),

		// The resolved class's capacity requests, or the skew guard when this scheduler's gate is off.
		createRequests().after("\t\tif class == nil {\n\t\t\tcontinue\n\t\t}\n", `
		// KEP-6406: with the gate off, a class that sets the field is
		// unsatisfiable rather than silently downgraded to a request for
		// whole devices.
		if class.Spec.ExtendedResourceCapacityRequests != nil && !enableExtendedResourceCapacity {
			return nil, nil, statusUnschedulable(logger, fmt.Sprintf("`+skewGuardMessage+`", class.Name), "pod", klog.KObj(pod), "deviceClass", klog.KObj(class))
		}
		var classCapacity *resourceapi.CapacityRequirements
		if enableExtendedResourceCapacity {
			classCapacity = class.Spec.ExtendedResourceCapacityRequests
		}
`),

		// Long-lived containers' requests carry the class's capacity requests.
		createRequests().replace("createResourceRequestAndMappings(i, &containers[i], resource, class.Name, nil)",
			"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, nil)",
		),

		// So do short-lived init containers' requests.
		createRequests().replace("createResourceRequestAndMappings(i, &containers[i], resource, class.Name, longLivedResourceRequests[i:])",
			"createResourceRequestAndMappings(i, &containers[i], resource, class.Name, classCapacity, longLivedResourceRequests[i:])",
		),

		// The new third result on success.
		createRequests().replace("\treturn deviceRequests, mappings\n", "\treturn deviceRequests, mappings, nil\n"),

		// createResourceRequestAndMappings takes the capacity requests alongside the class name (the KEP's integration point).
		createRequest().replace("className string, reusableRequests []*resourceapi.DeviceRequest)",
			"className string, capacity *resourceapi.CapacityRequirements, reusableRequests []*resourceapi.DeviceRequest)",
		),

		// The synthesized request gets a deep copy, so the claim never shares a map with the cached class.
		createRequest().after("\t\t\tCount:           crq - sum, // the extra devices to request\n",
			"\t\t\tCapacity:        capacity.DeepCopy(),\n",
		),
	}
}

package build

const kubeFeatures = "pkg/features/kube_features.go"

func featuresEdits() Group {
	return Group{Name: "feature gate", Edits: []Edit{
		// The gate's name, next to the KEP-5004 gate it extends.
		after(Kubernetes, kubeFeatures,
			"\tDRAExtendedResource featuregate.Feature = \"DRAExtendedResource\"\n",
			`
	// owner: draconform prototype
	// kep: https://kep.k8s.io/6406
	//
	// Lets a DeviceClass set extendedResourceCapacityRequests, which the
	// scheduler copies onto every device request it synthesizes for the
	// class's extended resource.
	DRAExtendedResourceCapacity featuregate.Feature = "DRAExtendedResourceCapacity"
`),

		// Alpha, off by default, from 1.37 (the binary's version), so that it can be enabled on these v1.37.2-based binaries.
		before(Kubernetes, kubeFeatures,
			"\tDRAFractionalCapacityRange: {\n\t\t{Version: version.MustParse(\"1.37\")",
			`	DRAExtendedResourceCapacity: {
		{Version: version.MustParse("1.37"), Default: false, PreRelease: featuregate.Alpha},
	},

`).in("var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{"),

		// The KEP's Dependencies: the field is inert without consumable capacity, and extends KEP-5004's synthesis.
		before(Kubernetes, kubeFeatures,
			"\tDRAFractionalCapacityRange: {DRAConsumableCapacity},\n",
			"\tDRAExtendedResourceCapacity: {DRAConsumableCapacity, DRAExtendedResource},\n\n",
		).in("var defaultKubernetesFeatureGateDependencies = map[featuregate.Feature][]featuregate.Feature{"),
	}}
}

package spec

// KnownGates are the alpha and beta feature gates cells and restarts may set. An allow-list
// catches typos (a misspelt gate makes a component refuse to start, far from
// the YAML that caused it).
var KnownGates = map[string]string{
	"DRAConsumableCapacity":       "KEP-5075, beta in v1.37 (on by default)",
	"DRAExtendedResourceCapacity": "KEP-6406, alpha (off by default); not in any release yet",
	"DRAPartitionableDevices":     "KEP-4815, beta in v1.37 (on by default)",
	"DRAFractionalCapacityRange":  "KEP-5075 follow-up: requestPolicy ranges, beta in v1.37 (off by default)",
}

// KnownComponents are the components a cell may set gates for.
var KnownComponents = []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager"}

// Package envcontract defines the environment variables through which the
// draconform test driver tells a container what was allocated to it. Test
// cases read them back from the log of a pod that runs `draconform-driver
// print-env`, so these names are a contract: change them only together with
// every case that reads them.
//
// For a claim, the allocation results of this driver are numbered
// i = 0, 1, 2, ... in the order of claim.status.allocation.devices.results,
// skipping results of other drivers. Result i yields:
//
//	DRACONFORM_<i>_REQUEST=<result.request, "<request>/<subrequest>" for a subrequest>
//	DRACONFORM_<i>_POOL=<result.pool>
//	DRACONFORM_<i>_DEVICE=<result.device>
//	DRACONFORM_<i>_SHARE_ID=<result.shareID, empty when none>
//	DRACONFORM_<i>_CONSUMED_<NAME>=<quantity.String()>  (one per consumedCapacity entry)
//
// where NAME is the capacity name uppercased with every character other than
// A-Z and 0-9 replaced by "_". Every device of the claim also carries
// DRACONFORM_CLAIM=<namespace>/<name>.
package envcontract

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
)

// DriverName is the test driver's DRA driver name: its ResourceSlices,
// its kubelet plugin directory, and what the suite looks for to know that
// a node runs it.
const DriverName = "testdriver.draconform.dev"

const (
	// Prefix starts every variable of the contract.
	Prefix = "DRACONFORM_"
	// ClaimVar names the claim as <namespace>/<name>.
	ClaimVar = Prefix + "CLAIM"
)

// RequestVar is the name of result i's request variable.
func RequestVar(i int) string { return resultVar(i, "REQUEST") }

// PoolVar is the name of result i's pool variable.
func PoolVar(i int) string { return resultVar(i, "POOL") }

// DeviceVar is the name of result i's device variable.
func DeviceVar(i int) string { return resultVar(i, "DEVICE") }

// ShareIDVar is the name of result i's share ID variable.
func ShareIDVar(i int) string { return resultVar(i, "SHARE_ID") }

// ConsumedVar is the name of the variable holding how much of the named
// capacity result i consumed.
func ConsumedVar(i int, capacity string) string {
	return resultVar(i, "CONSUMED_"+CapacityEnvName(capacity))
}

func resultVar(i int, field string) string {
	return Prefix + strconv.Itoa(i) + "_" + field
}

// CapacityEnvName turns a capacity name into the NAME part of a CONSUMED
// variable: "bandwidth" -> "BANDWIDTH", "example.com/mem-bw" -> "EXAMPLE_COM_MEM_BW".
func CapacityEnvName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, name)
}

// ClaimEnv is the DRACONFORM_CLAIM entry, as KEY=VALUE.
func ClaimEnv(namespace, name string) string {
	return ClaimVar + "=" + namespace + "/" + name
}

// ResultEnv is the environment of result i, as KEY=VALUE entries in a fixed
// order: request, pool, device, share ID, then consumed capacity sorted by
// variable name. Two capacities that map to one variable name are an error:
// one would silently hide the other.
func ResultEnv(i int, result resourceapi.DeviceRequestAllocationResult) ([]string, error) {
	shareID := ""
	if result.ShareID != nil {
		shareID = string(*result.ShareID)
	}
	env := []string{
		RequestVar(i) + "=" + result.Request,
		PoolVar(i) + "=" + result.Pool,
		DeviceVar(i) + "=" + result.Device,
		ShareIDVar(i) + "=" + shareID,
	}
	byVar := map[string]resourceapi.QualifiedName{}
	for _, name := range slices.Sorted(maps.Keys(result.ConsumedCapacity)) {
		key := ConsumedVar(i, string(name))
		if other, ok := byVar[key]; ok {
			return nil, fmt.Errorf("consumed capacities %q and %q both map to %s", other, name, key)
		}
		byVar[key] = name
	}
	for _, key := range slices.Sorted(maps.Keys(byVar)) {
		quantity := result.ConsumedCapacity[byVar[key]]
		env = append(env, key+"="+quantity.String())
	}
	return env, nil
}

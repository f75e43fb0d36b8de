package probe

import (
	"fmt"

	"github.com/draconform/draconform/tools/cluster"
)

// Gate names whose API-server settings decide what the probe must find.
const (
	GateCapacity   = "DRAExtendedResourceCapacity"
	GateConsumable = "DRAConsumableCapacity"
)

// Implied is what a cell's API-server gates promise the probe will find.
// An empty field promises nothing: the binary's default decides, and a case
// that needs a particular value skips where it is absent. A promised value
// that is absent is no reason to skip: the cluster is not in the state the
// cell names (a control plane that loses the field with its gate on), and
// every case of the cell must fail with the probe's evidence.
type Implied struct {
	CapacityRequestsField string
	ConsumableCapacity    string
	// Because says, per promised capability, which gate promised it.
	Because map[string]string
}

// Implies derives the promises of the gates a cell's kube-apiserver runs
// with. Only gates the provider really set (or the user declared with
// --as-cell) reach here: a cell a provider cannot honour never starts.
func Implies(gates cluster.GateState) Implied {
	out := Implied{Because: map[string]string{}}
	api := gates[cluster.APIServer]
	consumable, consumableSet := api[GateConsumable]
	if consumableSet {
		out.ConsumableCapacity = map[bool]string{true: "enabled", false: "disabled"}[consumable]
		out.Because["consumable"] = fmt.Sprintf("kube-apiserver runs with %s=%t", GateConsumable, consumable)
	}
	capacity, capacitySet := api[GateCapacity]
	switch {
	case !capacitySet:
	case capacity && consumableSet && !consumable:
		// The KEP rejects the field here (or the server refuses to start):
		// neither kept nor dropped is promised.
	case capacity:
		out.CapacityRequestsField = FieldKept
		out.Because["field"] = fmt.Sprintf("kube-apiserver runs with %s=true", GateCapacity)
		if !consumableSet {
			// The gate depends on DRAConsumableCapacity: a server that
			// started with it on has its prerequisite on too.
			out.ConsumableCapacity = "enabled"
			out.Because["consumable"] = fmt.Sprintf("kube-apiserver runs with %s=true, which requires %s", GateCapacity, GateConsumable)
		}
	default:
		// A server that accepted the gate knows the field, and drops it.
		out.CapacityRequestsField = FieldDropped
		out.Because["field"] = fmt.Sprintf("kube-apiserver runs with %s=false", GateCapacity)
	}
	return out
}

// fieldEvidence is what the probe saw, for each field state.
var fieldEvidence = map[string]string{
	FieldKept:    "the API server returned the class with the field",
	FieldDropped: "the API server accepted the class and returned it without the field, and without a warning",
	FieldUnknown: "the API server warned that the field is unknown",
}

// Contradictions lists, as sentences with the probe's evidence, every
// promise of i the probed capabilities break.
func (i Implied) Contradictions(c Capabilities) []string {
	var out []string
	if i.CapacityRequestsField != "" && i.CapacityRequestsField != c.CapacityRequestsField {
		out = append(out, fmt.Sprintf("%s, so DeviceClassSpec.extendedResourceCapacityRequests must be %s, but the probe (a dry-run create of a DeviceClass that sets it) found it %s: %s",
			i.Because["field"], i.CapacityRequestsField, c.CapacityRequestsField, fieldEvidence[c.CapacityRequestsField]))
	}
	if i.ConsumableCapacity != "" && i.ConsumableCapacity != c.ConsumableCapacity {
		out = append(out, fmt.Sprintf("%s, so the DRAConsumableCapacity fields must be %s, but the probe (a dry-run create of a ResourceSlice with allowMultipleAllocations) found them %s",
			i.Because["consumable"], i.ConsumableCapacity, c.ConsumableCapacity))
	}
	return out
}

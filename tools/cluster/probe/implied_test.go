package probe

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/cluster"
)

func TestImpliedContradictions(t *testing.T) {
	on := cluster.GateState{cluster.APIServer: {GateCapacity: true}}
	tests := []struct {
		name  string
		gates cluster.GateState
		caps  Capabilities
		want  []string // facts of each contradiction, in order; none: no contradiction
	}{
		{"defaults promise nothing", cluster.GateState{}, Capabilities{CapacityRequestsField: FieldUnknown, ConsumableCapacity: "disabled"}, nil},
		{"gate on, field kept", on, Capabilities{CapacityRequestsField: FieldKept, ConsumableCapacity: "enabled"}, nil},
		{"gate on, field dropped (protobuf storage)", on, Capabilities{CapacityRequestsField: FieldDropped, ConsumableCapacity: "enabled"},
			[]string{"DRAExtendedResourceCapacity=true", "must be kept", "found it dropped", "returned it without the field"}},
		{"gate on, field unknown", on, Capabilities{CapacityRequestsField: FieldUnknown, ConsumableCapacity: "enabled"},
			[]string{"must be kept", "found it unknown"}},
		{"gate on requires its prerequisite", on, Capabilities{CapacityRequestsField: FieldKept, ConsumableCapacity: "disabled"},
			[]string{"requires DRAConsumableCapacity", "must be enabled", "found them disabled"}},
		{"gate off, field dropped", cluster.GateState{cluster.APIServer: {GateCapacity: false}}, Capabilities{CapacityRequestsField: FieldDropped}, nil},
		{"gate off, field kept", cluster.GateState{cluster.APIServer: {GateCapacity: false}}, Capabilities{CapacityRequestsField: FieldKept},
			[]string{"DRAExtendedResourceCapacity=false", "must be dropped", "found it kept"}},
		{"scheduler gates promise nothing about the API server", cluster.GateState{cluster.Scheduler: {GateCapacity: true}}, Capabilities{CapacityRequestsField: FieldUnknown}, nil},
		{"consumable off", cluster.GateState{cluster.APIServer: {GateConsumable: false}}, Capabilities{ConsumableCapacity: "enabled"},
			[]string{"DRAConsumableCapacity=false", "must be disabled", "found them enabled"}},
		{"gate on with its prerequisite off promises no field state", cluster.GateState{cluster.APIServer: {GateCapacity: true, GateConsumable: false}},
			Capabilities{CapacityRequestsField: FieldDropped, ConsumableCapacity: "disabled"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Implies(tt.gates).Contradictions(tt.caps)
			if len(tt.want) == 0 {
				if len(got) > 0 {
					t.Fatalf("unexpected contradictions: %q", got)
				}
				return
			}
			text := strings.Join(got, "\n")
			for _, fact := range tt.want {
				if !strings.Contains(text, fact) {
					t.Errorf("contradictions lack %q:\n%s", fact, text)
				}
			}
		})
	}
}

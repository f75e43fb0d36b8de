package cluster

import (
	"errors"
	"fmt"
	"testing"
)

// The lines are what kube-scheduler v1.37.2 and v1.38.0-beta.0 print when
// they refuse --feature-gates (run here, 2026-12-05).
func TestGateRefusalPicksTheBinarysOwnWords(t *testing.T) {
	for _, tc := range []struct{ name, out, want string }{
		{"locked", `E1205 01:47:28.731462   13264 run.go:72] "command failed" err="cannot set feature gate DRAExtendedResource to false, feature is locked to true"`,
			"cannot set feature gate DRAExtendedResource to false, feature is locked to true"},
		{"removed or never there", `E1205 01:47:28.881038   13269 run.go:72] "command failed" err="unrecognized feature gate: NoSuchGate"`,
			"unrecognized feature gate: NoSuchGate"},
		{"an enabled gate depends on it", "I1205 01:52:15.265783   17480 feature_gate.go:362] \"Warning: setting GA feature gate. It will be removed in a future release.\" featureGate=\"DRAConsumableCapacity\" value=false\n" +
			`E1205 01:52:15.265971   17480 run.go:72] "command failed" err="DRAFractionalCapacityRange is enabled, but depends on features that are disabled: [DRAConsumableCapacity]"`,
			"DRAFractionalCapacityRange is enabled, but depends on features that are disabled: [DRAConsumableCapacity]"},
		{"several, in a start-up error that repeats them", "local: restarting kube-scheduler: exited: [unrecognized feature gate: A, cannot set feature gate B to false, feature is locked to true]\nlog tail: unrecognized feature gate: A",
			"unrecognized feature gate: A; cannot set feature gate B to false, feature is locked to true"},
		{"a failure that is not about gates", `E1205 run.go:72] "command failed" err="failed to listen on 127.0.0.1:1234: listen tcp: address already in use"`, ""},
		{"a gate named in a failure that is not a refusal", "kube-scheduler with gates DRAConsumableCapacity=false did not become ready within 60s", ""},
	} {
		if got := GateRefusal(tc.out); got != tc.want {
			t.Errorf("%s: GateRefusal = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A restart's refusal is what the provider cannot do, so that code asking
// for ErrUnsupported finds it, and it says whose gates and why.
func TestGatesNotOfferedIsUnsupported(t *testing.T) {
	err := fmt.Errorf("step 3: %w", &GatesNotOffered{Component: Scheduler, Gates: Gates{"DRAConsumableCapacity": false}, Reason: "DRAFractionalCapacityRange is enabled, but depends on features that are disabled: [DRAConsumableCapacity]"})
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("%v is not ErrUnsupported", err)
	}
	want := "step 3: kube-scheduler does not offer the gates {DRAConsumableCapacity=false}: DRAFractionalCapacityRange is enabled, but depends on features that are disabled: [DRAConsumableCapacity]"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

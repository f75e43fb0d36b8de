package steps_test

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
)

// classWith is the class of synthClaim, declaring capacity requests and
// last written at the given time (the claim is created at 10:00:05).
func classWith(requests, writtenAt string) string {
	spec := "spec: {extendedResourceName: " + gpu + "}"
	if requests != "" {
		spec = "spec: {extendedResourceName: " + gpu + ", extendedResourceCapacityRequests: {requests: " + requests + "}}"
	}
	return "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: " + stepstest.Prefix + "-gpu\n" +
		"  managedFields: [{manager: admin, operation: Update, apiVersion: resource.k8s.io/v1, time: \"" + writtenAt + "\"}]\n" + spec + "\n"
}

func claimWithCapacity(capacity string) string {
	c := strings.Replace(synthClaim, "metadata:\n", "metadata:\n  creationTimestamp: \"2026-11-30T10:00:05Z\"\n", 1)
	return strings.Replace(c, `capacity: {requests: {shares: "1"}}`, capacity, 1)
}

func TestCapacityInvariant(t *testing.T) {
	const before, after = "2026-11-30T10:00:00Z", "2026-11-30T10:00:09Z"
	tests := []struct {
		name, class, claim string
		fail               []string
	}{
		{"class without the field", classWith("", before), claimWithCapacity(""), nil},
		{"capacity carried", classWith(`{shares: "1"}`, before), claimWithCapacity(`capacity: {requests: {shares: "1"}}`), nil},
		{"capacity lost", classWith(`{shares: "1"}`, before), claimWithCapacity(""),
			[]string{"sets extendedResourceCapacityRequests", "has no capacity", "container-0-request-0", "pod p1"}},
		{"capacity differs", classWith(`{shares: "2"}`, before), claimWithCapacity(`capacity: {requests: {shares: "1"}}`),
			[]string{"asks for capacity", "declares", "shares"}},
		{"extra capacity name", classWith(`{shares: "1"}`, before), claimWithCapacity(`capacity: {requests: {shares: "1", memory: 1Gi}}`),
			[]string{"memory"}},
		{"class changed after the claim was made", classWith(`{shares: "2"}`, after), claimWithCapacity(""), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := stepstest.New(t)
			f.AddYAML(tt.class)
			f.AddYAML(tt.claim)
			check(t, run(t, f, steps.CapacityInvariant{}), tt.fail)
		})
	}
}

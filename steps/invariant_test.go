package steps_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
)

// classWith is the class of synthClaim at a generation, declaring capacity
// requests and last written at the given time (the claim is created at
// 10:00:05).
func classWith(requests, writtenAt string, generation int) string {
	spec := "spec: {extendedResourceName: " + gpu + "}"
	if requests != "" {
		spec = "spec: {extendedResourceName: " + gpu + ", extendedResourceCapacityRequests: {requests: " + requests + "}}"
	}
	return "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: " + stepstest.Prefix + "-gpu\n" +
		"  generation: " + strconv.Itoa(generation) + "\n" +
		"  managedFields: [{manager: admin, operation: Update, apiVersion: resource.k8s.io/v1, time: \"" + writtenAt + "\"}]\n" + spec + "\n"
}

func claimWithCapacity(capacity string) string {
	c := strings.Replace(synthClaim, "metadata:\n", "metadata:\n  creationTimestamp: \"2026-11-30T10:00:05Z\"\n", 1)
	return strings.Replace(c, `capacity: {requests: {shares: "1"}}`, capacity, 1)
}

func TestCapacityInvariant(t *testing.T) {
	const before, same, after = "2026-11-30T10:00:00Z", "2026-11-30T10:00:05Z", "2026-11-30T10:00:09Z"
	lost := []string{"sets extendedResourceCapacityRequests", "has no capacity", "container-0-request-0", "pod p1"}
	tests := []struct {
		name, class, claim string
		// written are class versions the case wrote before the current one.
		written []string
		fail    []string
	}{
		{"class without the field", classWith("", before, 1), claimWithCapacity(""), nil, nil},
		{"capacity carried", classWith(`{shares: "1"}`, before, 1), claimWithCapacity(`capacity: {requests: {shares: "1"}}`), nil, nil},
		{"capacity lost", classWith(`{shares: "1"}`, before, 1), claimWithCapacity(""), nil, lost},
		// The suites create a class milliseconds before the pod: the same
		// second as the claim must not hide a lost field.
		{"class written the same second, never changed", classWith(`{shares: "1"}`, same, 1), claimWithCapacity(""), nil, lost},
		{"class written after the claim, never changed", classWith(`{shares: "1"}`, after, 1), claimWithCapacity(""), nil, lost},
		{"capacity differs", classWith(`{shares: "2"}`, before, 1), claimWithCapacity(`capacity: {requests: {shares: "1"}}`), nil,
			[]string{"asks for capacity", "declares", "shares"}},
		{"extra capacity name", classWith(`{shares: "1"}`, before, 1), claimWithCapacity(`capacity: {requests: {shares: "1", memory: 1Gi}}`), nil,
			[]string{"memory"}},
		{"capacity where the class sets none", classWith("", before, 1), claimWithCapacity(`capacity: {requests: {shares: "1"}}`), nil,
			[]string{"does not set extendedResourceCapacityRequests", "asks for capacity"}},
		{"claim made under a version the case wrote", classWith(`{shares: "2"}`, after, 2), claimWithCapacity(`capacity: {requests: {shares: "1"}}`),
			[]string{`{shares: "1"}`}, nil},
		{"claim made under a version without the field", classWith(`{shares: "2"}`, after, 2), claimWithCapacity(""),
			[]string{""}, nil},
		{"changed class, and no version the case wrote matches", classWith(`{shares: "2"}`, after, 2), claimWithCapacity(""),
			[]string{`{shares: "1"}`}, []string{"no version of class", "the case wrote"}},
		{"class changed behind the case's back", classWith(`{shares: "2"}`, after, 2), claimWithCapacity(""), nil, nil},
		// Class migration deletes the class a claim was made from.
		{"class the case deleted, claim made under a version it wrote", "", claimWithCapacity(`capacity: {requests: {shares: "1"}}`),
			[]string{`{shares: "1"}`}, nil},
		{"class the case deleted, and no version it wrote matches", "", claimWithCapacity(`capacity: {requests: {shares: "1"}}`),
			[]string{`{shares: "2"}`}, []string{"no version of class", "the case wrote"}},
		{"class deleted behind the case's back", "", claimWithCapacity(""), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := stepstest.New(t)
			for _, requests := range tt.written {
				// Written through the case, as an update step would.
				use := "{fixture: class-plain, name: gpu}"
				if requests != "" {
					use = "{fixture: class-capacity, name: gpu, vars: {requests: " + requests + "}}"
				}
				mustPass(t, run(t, f, write(t, "create", use)))
				mustPass(t, f.Env.RunCleanup(context.Background()))
			}
			if tt.class != "" {
				f.AddYAML(tt.class)
			}
			f.AddYAML(tt.claim)
			check(t, run(t, f, steps.CapacityInvariant{}), tt.fail)
		})
	}
}

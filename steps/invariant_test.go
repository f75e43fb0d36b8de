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

// sliceWith publishes gpu-0 in node1's pool of the case's driver; shared
// says allowMultipleAllocations.
func sliceWith(shared bool) string {
	return sliceWithShares(shared, `{value: "4"}`)
}

// sliceWithShares publishes gpu-0 with the given capacity "shares".
func sliceWithShares(shared bool, shares string) string {
	multi := ""
	if shared {
		multi = "allowMultipleAllocations: true, "
	}
	return `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: ` + stepstest.Prefix + `-slice}
spec:
  driver: ` + stepstest.Driver + `
  nodeName: ` + node1 + `
  pool: {name: ` + node1 + `, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, ` + multi + `capacity: {shares: ` + shares + `, memory: {value: 4Gi}}}
`
}

// The allocation of a synthesized request with capacity: on a shared
// device, a share (shareID) consuming the request of every capacity, rounded
// up by the device's requestPolicy and no further; on a device that is not
// shared, the whole device.
func TestCapacityInvariantAllocation(t *testing.T) {
	const before = "2026-11-30T10:00:00Z"
	tests := []struct {
		name      string
		requests  string // the class's and the request's capacity
		consumed  string // the result's consumedCapacity; "" for none
		shareID   bool
		slice     string // "" for no slice
		annotated bool   // else found through the pod's status only
		named     bool   // the pod's status names the claim
		fails     []string
	}{
		{name: "consumes the request", requests: `{shares: "2"}`, consumed: `{shares: "2"}`, shareID: true, slice: sliceWith(true), annotated: true},
		{name: "consumes more, as validRange's min rounds up", requests: `{shares: "2"}`, consumed: `{shares: "3"}`, shareID: true, slice: sliceWithShares(true, `{value: "4", requestPolicy: {validRange: {min: "3"}}}`), annotated: true},
		{name: "consumes more, as validRange's step rounds up", requests: `{shares: "2"}`, consumed: `{shares: "3"}`, shareID: true, slice: sliceWithShares(true, `{value: "8", requestPolicy: {validRange: {min: "1", step: "2"}}}`), annotated: true},
		{name: "consumes more, as validValues round up", requests: `{shares: "2"}`, consumed: `{shares: "4"}`, shareID: true, slice: sliceWithShares(true, `{value: "8", requestPolicy: {validValues: ["1", "4", "8"]}}`), annotated: true},
		{name: "a fraction consumed as asked", requests: `{shares: "500m"}`, consumed: `{shares: "0.5"}`, shareID: true, slice: sliceWith(true), annotated: true},
		{name: "consumes more than the request, without a requestPolicy", requests: `{shares: "2"}`, consumed: `{shares: "3"}`, shareID: true, slice: sliceWith(true), annotated: true,
			fails: []string{"shares: 3 consumed, 2 asked, on a capacity with no requestPolicy to round it up", "up to the whole device"}},
		{name: "consumes the whole device", requests: `{shares: "1"}`, consumed: `{shares: "4"}`, shareID: true, slice: sliceWith(true), annotated: true,
			fails: []string{"shares: 4 consumed, 1 asked", "is more than the request"}},
		{name: "consumes past validRange's next step", requests: `{shares: "2"}`, consumed: `{shares: "5"}`, shareID: true, slice: sliceWithShares(true, `{value: "8", requestPolicy: {validRange: {min: "1", step: "2"}}}`), annotated: true,
			fails: []string{"rounds up to 3"}},
		{name: "consumes past the least valid value", requests: `{shares: "2"}`, consumed: `{shares: "8"}`, shareID: true, slice: sliceWithShares(true, `{value: "8", requestPolicy: {validValues: ["1", "4", "8"]}}`), annotated: true,
			fails: []string{"rounds up to 4"}},
		{name: "consumes less than validRange's step rounds up to", requests: `{shares: "2"}`, consumed: `{shares: "2"}`, shareID: true, slice: sliceWithShares(true, `{value: "8", requestPolicy: {validRange: {min: "1", step: "2"}}}`), annotated: true,
			fails: []string{"shares: 2 consumed, 2 asked, which the device's requestPolicy rounds up to 3", "below what the request asks for"}},
		{name: "a fractional step: milli-units or whole units", requests: `{shares: "1200m"}`, consumed: `{shares: "1500m"}`, shareID: true, slice: sliceWithShares(true, `{value: "8", requestPolicy: {validRange: {min: "500m", step: "500m"}}}`), annotated: true},
		{name: "a fractional step in whole units", requests: `{shares: "1200m"}`, consumed: `{shares: "2"}`, shareID: true, slice: sliceWithShares(true, `{value: "8", requestPolicy: {validRange: {min: "500m", step: "500m"}}}`), annotated: true},
		{name: "a fractional step, past both", requests: `{shares: "1200m"}`, consumed: `{shares: "3"}`, shareID: true, slice: sliceWithShares(true, `{value: "8", requestPolicy: {validRange: {min: "500m", step: "500m"}}}`), annotated: true,
			fails: []string{"rounds up to 2"}},
		{name: "the request's domain, the device's name without it", requests: `{"` + stepstest.Driver + `/shares": "1"}`, consumed: `{shares: "1"}`, shareID: true, slice: sliceWith(true), annotated: true},
		{name: "the request's domain, the whole device under the device's name", requests: `{"` + stepstest.Driver + `/shares": "1"}`, consumed: `{shares: "4"}`, shareID: true, slice: sliceWith(true), annotated: true,
			fails: []string{"4 consumed, 1 asked"}},
		{name: "the request's domain, the whole device under the request's name", requests: `{"` + stepstest.Driver + `/shares": "1"}`, consumed: `{"` + stepstest.Driver + `/shares": "4"}`, shareID: true, slice: sliceWith(true), annotated: true,
			fails: []string{"4 consumed, 1 asked"}},
		{name: "slice gone: no upper bound is known", requests: `{shares: "1"}`, consumed: `{shares: "4"}`, shareID: true, annotated: true},
		{name: "consumes less than the request", requests: `{shares: "2"}`, consumed: `{shares: "1"}`, shareID: true, slice: sliceWith(true), annotated: true,
			fails: []string{"device " + stepstest.Driver + "/" + node1 + "/gpu-0", "request container-0-request-0", "shares: 1 consumed, 2 asked", "below what the request asks for"}},
		{name: "a capacity not consumed", requests: `{shares: "1", memory: 1Gi}`, consumed: `{shares: "1"}`, shareID: true, slice: sliceWith(true), annotated: true,
			fails: []string{"memory: none consumed, 1Gi asked"}},
		{name: "no shareID on a shared device", requests: `{shares: "1"}`, consumed: `{shares: "1"}`, slice: sliceWith(true), annotated: true,
			fails: []string{"the device is shared (allowMultipleAllocations), but the allocation has no shareID"}},
		{name: "a shared device taken whole", requests: `{shares: "1"}`, slice: sliceWith(true), annotated: true,
			fails: []string{"has no shareID"}},
		{name: "a device that is not shared, taken whole", requests: `{shares: "1"}`, slice: sliceWith(false), annotated: true},
		{name: "slice gone: a share is judged by its fields", requests: `{shares: "2"}`, consumed: `{shares: "1"}`, shareID: true, annotated: true,
			fails: []string{"shares: 1 consumed, 2 asked"}},
		{name: "slice gone, whole device", requests: `{shares: "2"}`, annotated: true},
		{name: "found through the pod's status, without the annotation", requests: `{shares: "2"}`, consumed: `{shares: "1"}`, shareID: true, slice: sliceWith(true), named: true,
			fails: []string{"synthesized for pod p1", "shares: 1 consumed, 2 asked"}},
		{name: "a hand-written claim is not the invariant's", requests: `{shares: "2"}`, consumed: `{shares: "1"}`, shareID: true, slice: sliceWith(true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := stepstest.New(t)
			f.AddYAML(classWith(tt.requests, before, 1))
			if tt.slice != "" {
				f.AddYAML(tt.slice)
			}
			claim := stepstest.Obj(t, claimWithCapacity(`capacity: {requests: `+tt.requests+`}`))
			if !tt.annotated {
				claim.SetAnnotations(nil)
			}
			result := map[string]any{"request": "container-0-request-0", "driver": stepstest.Driver, "pool": node1, "device": "gpu-0"}
			if tt.shareID {
				result["shareID"] = "5b7c3a4e-0d4f-4c0e-9d57-2f0b8a3c1e11"
			}
			if tt.consumed != "" {
				result["consumedCapacity"] = tree(t, "c: "+tt.consumed)["c"]
			}
			set(t, claim, []any{result}, "status", "allocation", "devices", "results")
			f.Add(claim)
			status := ""
			if tt.named {
				status = "status: {extendedResourceClaimStatus: {resourceClaimName: " + claim.GetName() + "}}\n"
			}
			f.AddYAML(podYAML("p1", node1, status))
			check(t, run(t, f, steps.CapacityInvariant{}), tt.fails)
		})
	}
}

// A claim a pod's status names is the pod's synthesized claim whether or
// not it carries the annotation: a scheduler that forgets it must not hide
// a lost field from the invariant.
func TestCapacityInvariantFindsClaimsThroughThePodStatus(t *testing.T) {
	f := stepstest.New(t)
	f.AddYAML(classWith(`{shares: "1"}`, "2026-11-30T10:00:00Z", 1))
	claim := stepstest.Obj(t, claimWithCapacity(""))
	claim.SetAnnotations(nil)
	f.Add(claim)
	f.AddYAML(podYAML("p1", node1, "status: {extendedResourceClaimStatus: {resourceClaimName: "+claim.GetName()+"}}\n"))
	mustFail(t, run(t, f, steps.CapacityInvariant{}), "sets extendedResourceCapacityRequests", "has no capacity", "synthesized for pod p1")
}

package steps_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

const synthName = "p1-extended-resources-x7k2q"

// The pod and the claim the scheduler synthesized for it (owned by the UID
// stepstest.UID gives p1), as v1.37 with
// KEP-6406 would write them for one shared GPU.
const synthPod = `apiVersion: v1
kind: Pod
metadata: {name: p1}
spec:
  nodeName: ` + node1 + `
  containers:
  - name: main
    image: pause
    resources: {requests: {"` + gpu + `": "1"}, limits: {"` + gpu + `": "1"}}
status:
  extendedResourceClaimStatus:
    resourceClaimName: ` + synthName + `
    requestMappings:
    - {containerName: main, resourceName: "` + gpu + `", requestName: container-0-request-0}
`

const synthClaim = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: ` + synthName + `
  annotations: {resource.kubernetes.io/extended-resource-claim: "true"}
  ownerReferences: [{apiVersion: v1, kind: Pod, name: p1, uid: uid-pod-p1, controller: true}]
spec:
  devices:
    requests:
    - name: container-0-request-0
      exactly:
        deviceClassName: ` + stepstest.Prefix + `-gpu
        allocationMode: ExactCount
        count: 1
        capacity: {requests: {shares: "1"}}
status:
  allocation:
    devices:
      results:
      - request: container-0-request-0
        driver: ` + stepstest.Driver + `
        pool: ` + node1 + `
        device: gpu-0
        shareID: 5b7c3a4e-0d4f-4c0e-9d57-2f0b8a3c1e11
        consumedCapacity: {shares: "1"}
`

const synthExpect = `pod: p1
within: 300ms
requests:
- {name: container-0-request-0, deviceClass: gpu, count: 1, capacity: {shares: "1"}}
results:
- {request: container-0-request-0, device: gpu-0, consumedCapacity: {shares: "1"}, shareID: set}
mapping:
- {container: main, resource: "${domain}/gpu", request: container-0-request-0}
`

// first returns element 0 of a list of maps inside an object, to change it in place.
func first(u *unstructured.Unstructured, path ...string) map[string]any {
	l, _, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
	return l.([]any)[0].(map[string]any)
}

func request0(u *unstructured.Unstructured) map[string]any {
	return first(u, "spec", "devices", "requests")["exactly"].(map[string]any)
}

func result0(u *unstructured.Unstructured) map[string]any {
	return first(u, "status", "allocation", "devices", "results")
}

type synthesizedCase struct {
	name   string
	claim  func(c *unstructured.Unstructured)
	pod    func(p *unstructured.Unstructured)
	expect string // replaces synthExpect
	extra  string // another claim owned by p1
	fails  []string
}

// synthesizedCases change the synthesized claim, the pod or the expectation
// from the one that matches (synthClaim, synthPod, synthExpect).
var synthesizedCases = []synthesizedCase{
	{name: "matches"},
	{name: "capacity equal by value", claim: func(c *unstructured.Unstructured) {
		request0(c)["capacity"] = map[string]any{"requests": map[string]any{"shares": "1000m"}}
	}},
	{name: "wrong request name", claim: func(c *unstructured.Unstructured) {
		first(c, "spec", "devices", "requests")["name"] = "container-0-request-1"
	}, fails: []string{"the claim synthesized for pod p1", "not met within", "ResourceClaim " + synthName + " does not match",
		"spec.devices.requests[0].name: differs", `"container-0-request-1"`, "--- want", "+++ got"}},
	{name: "wrong count", claim: func(c *unstructured.Unstructured) { request0(c)["count"] = int64(2) },
		fails: []string{"spec.devices.requests[0].exactly.count: differs (want 1, got 2)"}},
	{name: "wrong device class", claim: func(c *unstructured.Unstructured) { request0(c)["deviceClassName"] = "other" },
		fails: []string{"exactly.deviceClassName: differs", `"` + stepstest.Prefix + `-gpu"`, `"other"`}},
	{name: "one request too many", claim: func(c *unstructured.Unstructured) {
		devices, _, _ := unstructured.NestedFieldNoCopy(c.Object, "spec", "devices")
		d := devices.(map[string]any)
		d["requests"] = append(d["requests"].([]any), map[string]any{"name": "container-1-request-0"})
	}, fails: []string{"spec.devices.requests: length 2, want 1"}},
	{name: "capacity present, null expected", expect: `pod: p1
within: 300ms
requests: [{name: container-0-request-0, capacity: null}]`,
		fails: []string{"spec.devices.requests[0].exactly.capacity: must be absent", "shares"}},
	{name: "capacity absent, expected", claim: func(c *unstructured.Unstructured) { delete(request0(c), "capacity") },
		fails: []string{"exactly.capacity: missing"}},
	{name: "capacity differs", claim: func(c *unstructured.Unstructured) {
		request0(c)["capacity"] = map[string]any{"requests": map[string]any{"shares": "2"}}
	}, fails: []string{`exactly.capacity.requests.shares: differs (want "1", got "2")`}},
	{name: "consumedCapacity differs", claim: func(c *unstructured.Unstructured) {
		result0(c)["consumedCapacity"] = map[string]any{"shares": "4"}
	}, fails: []string{`status.allocation.devices.results[0].consumedCapacity.shares: differs (want "1", got "4")`}},
	{name: "consumedCapacity present, null expected", expect: `pod: p1
within: 300ms
results: [{request: container-0-request-0, consumedCapacity: null}]`,
		fails: []string{"results[0].consumedCapacity: must be absent"}},
	{name: "shareID set, unset expected", expect: `pod: p1
within: 300ms
results: [{request: container-0-request-0, shareID: unset}]`,
		fails: []string{"results[0].shareID: must be absent", "5b7c3a4e"}},
	{name: "shareID unset, set expected", claim: func(c *unstructured.Unstructured) { delete(result0(c), "shareID") },
		fails: []string{"results[0].shareID: missing"}},
	{name: "wrong device", claim: func(c *unstructured.Unstructured) { result0(c)["device"] = "gpu-1" },
		fails: []string{`results[0].device: differs (want "gpu-0", got "gpu-1")`}},
	{name: "another driver", claim: func(c *unstructured.Unstructured) { result0(c)["driver"] = "gpu.example.com" },
		fails: []string{"results[0].driver: differs", stepstest.Driver, "gpu.example.com"}},
	{name: "not allocated", claim: func(c *unstructured.Unstructured) { delete(c.Object, "status") },
		fails: []string{"status: missing"}},
	{name: "annotation missing", claim: func(c *unstructured.Unstructured) { c.SetAnnotations(nil) },
		fails: []string{"claim " + synthName + " of pod p1 lacks the annotation resource.kubernetes.io/extended-resource-claim"}},
	{name: "annotation not true", claim: func(c *unstructured.Unstructured) {
		c.SetAnnotations(map[string]string{steps.ExtendedResourceClaimAnnotation: "false"})
	}, fails: []string{"lacks the annotation", "false"}},
	{name: "two claims owned by the pod", extra: "p1-extended-resources-second",
		fails: []string{"pod p1 owns 2", synthName, "p1-extended-resources-second", "exactly one per pod"}},
	{name: "named claim not owned by the pod", claim: func(c *unstructured.Unstructured) {
		c.SetOwnerReferences(nil)
	}, fails: []string{"pod p1 names claim " + synthName + " in its status, but no such claim is owned by the pod"}},
	{name: "no claim in pod status", pod: func(p *unstructured.Unstructured) { delete(p.Object, "status") },
		fails: []string{"pod p1 has no status.extendedResourceClaimStatus", "not met within"}},
	{name: "mapping differs", pod: func(p *unstructured.Unstructured) {
		first(p, "status", "extendedResourceClaimStatus", "requestMappings")["resourceName"] = "example.com/gpu"
	}, fails: []string{"pod p1's extendedResourceClaimStatus", "requestMappings[0].resourceName: differs", "example.com/gpu", gpu}},
	{name: "mapping has another request", pod: func(p *unstructured.Unstructured) {
		first(p, "status", "extendedResourceClaimStatus", "requestMappings")["requestName"] = "container-0-request-1"
	}, fails: []string{"requestMappings[0].requestName: differs"}},
	{name: "mapping misses an entry", expect: synthExpect + "- {container: second, resource: \"${domain}/gpu\", request: container-1-request-0}\n",
		fails: []string{"requestMappings: length 1, want 2"}},
}

func TestExpectClaimSynthesized(t *testing.T) {
	for _, tt := range synthesizedCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkSynthesized(t, tt)
		})
	}
}

func checkSynthesized(t *testing.T, tt synthesizedCase) {
	f := stepstest.New(t)
	f.SeedYAML("gpu", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: "+stepstest.Prefix+"-gpu}")
	pod, claim := stepstest.Obj(t, synthPod), stepstest.Obj(t, synthClaim)
	if tt.pod != nil {
		tt.pod(pod)
	}
	if tt.claim != nil {
		tt.claim(claim)
	}
	f.Seed("p1", pod)
	f.Add(claim)
	// Another pod's claim and a hand-written one: neither is p1's.
	other := stepstest.Obj(t, synthClaim)
	other.SetName("other-extended-resources-abcde")
	other.SetOwnerReferences(nil)
	f.Add(other)
	f.AddYAML("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c1}")
	if tt.extra != "" {
		extra := stepstest.Obj(t, synthClaim)
		extra.SetName(tt.extra)
		f.Add(extra)
	}
	expect := synthExpect
	if tt.expect != "" {
		expect = tt.expect
	}
	err := run(t, f, &steps.ExpectClaim{Spec: decode[spec.ExpectClaim](t, expect)})
	check(t, err, tt.fails)
}

// The pod names its claim and the claim gets allocated while the step waits.
func TestExpectClaimSynthesizedWaits(t *testing.T) {
	f := stepstest.New(t)
	f.SeedYAML("gpu", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: "+stepstest.Prefix+"-gpu}")
	full, claim := stepstest.Obj(t, synthPod), stepstest.Obj(t, synthClaim)
	status, allocation := full.Object["status"], claim.Object["status"]
	delete(full.Object, "status")
	delete(claim.Object, "status")
	p := f.Seed("p1", full)
	c := f.Add(claim)
	f.Later(100*time.Millisecond, func() {
		f.Modify(p, func(u *unstructured.Unstructured) { u.Object["status"] = status })
	})
	f.Later(200*time.Millisecond, func() {
		f.Modify(c, func(u *unstructured.Unstructured) { u.Object["status"] = allocation })
	})
	e := decode[spec.ExpectClaim](t, synthExpect)
	e.Within = spec.Duration(3 * time.Second)
	mustPass(t, run(t, f, &steps.ExpectClaim{Spec: e}))
}

const handClaim = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1}
spec:
  devices:
    requests:
    - name: req-0
      exactly: {deviceClassName: ` + stepstest.Prefix + `-gpu, allocationMode: ExactCount, count: 1, capacity: {requests: {shares: "1"}}}
status:
  allocation:
    devices:
      results:
      - {request: req-0, driver: ` + stepstest.Driver + `, pool: p, device: gpu-0, shareID: 0e2d, consumedCapacity: {shares: "1"}}
`

func TestExpectClaimByName(t *testing.T) {
	const expect = `claim: c1
within: 300ms
requests:
- {name: req-0, deviceClass: gpu, count: 1, capacity: {shares: "1"}}
results:
- {request: req-0, device: gpu-0, consumedCapacity: {shares: "1"}, shareID: set}
`
	tests := []struct {
		name   string
		claim  func(c *unstructured.Unstructured)
		expect string
		fails  []string
	}{
		{name: "matches"},
		{name: "device variable", expect: "claim: c1\nresults: [{request: req-0, device: \"${dev}\"}]"},
		{name: "consumed differs", claim: func(c *unstructured.Unstructured) { result0(c)["consumedCapacity"] = map[string]any{"shares": "4"} },
			fails: []string{"claim c1: not met within", "ResourceClaim c1 does not match", `consumedCapacity.shares: differs (want "1", got "4")`}},
		{name: "not allocated", claim: func(c *unstructured.Unstructured) { delete(c.Object, "status") },
			fails: []string{"claim c1", "status: missing"}},
		{name: "unknown claim", expect: "claim: c9\nresults: []", fails: []string{"resourceclaim/c9 was not created by this case"}},
		{name: "unknown class", expect: "claim: c1\nrequests: [{name: req-0, deviceClass: tpu}]", fails: []string{"deviceclass/tpu was not created by this case"}},
		{name: "undefined variable", expect: "claim: c1\nresults: [{request: req-0, device: \"${nope}\"}]", fails: []string{"undefined variable ${nope}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t, stepstest.CaseVars("dev: gpu-0"))
			f.SeedYAML("gpu", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: "+stepstest.Prefix+"-gpu}")
			c := stepstest.Obj(t, handClaim)
			if tt.claim != nil {
				tt.claim(c)
			}
			f.Seed("c1", c)
			e := expect
			if tt.expect != "" {
				e = tt.expect
			}
			check(t, run(t, f, &steps.ExpectClaim{Spec: decode[spec.ExpectClaim](t, e)}), tt.fails)
		})
	}
}

func TestExpectClaimByNameWaits(t *testing.T) {
	f := stepstest.New(t)
	full := stepstest.Obj(t, handClaim)
	allocation := full.Object["status"]
	delete(full.Object, "status")
	c := f.Seed("c1", full)
	f.Later(100*time.Millisecond, func() {
		f.Modify(c, func(u *unstructured.Unstructured) { u.Object["status"] = allocation })
	})
	mustPass(t, run(t, f, &steps.ExpectClaim{Spec: decode[spec.ExpectClaim](t,
		"claim: c1\nwithin: 3s\nresults: [{request: req-0, device: gpu-0, shareID: set}]")}))
}

// withResults gives the claim these results, each {device, consumed shares}.
func withResults(t *testing.T, c *unstructured.Unstructured, devices ...string) {
	var results []any
	for _, d := range devices {
		results = append(results, map[string]any{"request": "container-0-request-0", "driver": stepstest.Driver, "pool": node1,
			"device": d, "shareID": "id-" + d, "consumedCapacity": map[string]any{"shares": "1"}})
	}
	set(t, c, results, "status", "allocation", "devices", "results")
}

// The order of results is the allocator's; expectClaim pairs each expected
// result with a distinct one of the claim, and still tells a missing or
// doubled device.
func TestExpectClaimResultsInAnyOrder(t *testing.T) {
	const expect = `pod: p1
within: 300ms
results:
- {request: container-0-request-0, device: gpu-0, consumedCapacity: {shares: "1"}, shareID: set}
- {request: container-0-request-0, device: gpu-1, consumedCapacity: {shares: "1"}, shareID: set}
- {request: container-0-request-0, device: gpu-2, consumedCapacity: {shares: "1"}, shareID: set}
`
	tests := []struct {
		name    string
		devices []string
		fails   []string
	}{
		{name: "in order", devices: []string{"gpu-0", "gpu-1", "gpu-2"}},
		{name: "permuted", devices: []string{"gpu-2", "gpu-0", "gpu-1"}},
		{name: "one device twice", devices: []string{"gpu-2", "gpu-0", "gpu-0"},
			fails: []string{"no element matches want[1] (in any order)", `results[2].device: differs (want "gpu-1", got "gpu-0")`}},
		{name: "one missing", devices: []string{"gpu-2", "gpu-0"}, fails: []string{"results: length 2, want 3 (in any order)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			pod, claim := stepstest.Obj(t, synthPod), stepstest.Obj(t, synthClaim)
			withResults(t, claim, tt.devices...)
			f.Seed("p1", pod)
			f.Add(claim)
			check(t, run(t, f, &steps.ExpectClaim{Spec: decode[spec.ExpectClaim](t, expect)}), tt.fails)
		})
	}
}

// absent: names fields nothing may set: the step fails when the scheduler
// set one on the request or the result.
func TestExpectClaimAbsentFields(t *testing.T) {
	const expect = `pod: p1
within: 300ms
requests: [{name: container-0-request-0, absent: [tolerations, adminAccess, selectors]}]
results: [{request: container-0-request-0, absent: [tolerations, adminAccess]}]
`
	tests := []struct {
		name  string
		claim func(c *unstructured.Unstructured)
		fails []string
	}{
		{name: "none set"},
		{name: "adminAccess null", claim: func(c *unstructured.Unstructured) { request0(c)["adminAccess"] = nil }},
		{name: "request tolerates", claim: func(c *unstructured.Unstructured) {
			request0(c)["tolerations"] = []any{map[string]any{"operator": "Exists"}}
		}, fails: []string{"spec.devices.requests[0].exactly.tolerations: must be absent", "Exists"}},
		{name: "request has admin access", claim: func(c *unstructured.Unstructured) { request0(c)["adminAccess"] = false },
			fails: []string{"spec.devices.requests[0].exactly.adminAccess: must be absent (got false)"}},
		{name: "request has selectors", claim: func(c *unstructured.Unstructured) {
			request0(c)["selectors"] = []any{map[string]any{"cel": map[string]any{"expression": "true"}}}
		}, fails: []string{"exactly.selectors: must be absent"}},
		{name: "result tolerates", claim: func(c *unstructured.Unstructured) {
			result0(c)["tolerations"] = []any{map[string]any{"operator": "Exists"}}
		}, fails: []string{"status.allocation.devices.results[0].tolerations: must be absent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			pod, claim := stepstest.Obj(t, synthPod), stepstest.Obj(t, synthClaim)
			if tt.claim != nil {
				tt.claim(claim)
			}
			f.Seed("p1", pod)
			f.Add(claim)
			check(t, run(t, f, &steps.ExpectClaim{Spec: decode[spec.ExpectClaim](t, expect)}), tt.fails)
		})
	}
}

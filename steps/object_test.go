package steps_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

// instantiate renders a use written in YAML (an ObjectUse, as in given:).
func instantiate(t *testing.T, f *stepstest.Fake, use string) (*steps.Created, spec.Ref, error) {
	t.Helper()
	return steps.Instantiate(f.Env, decode[spec.ObjectUse](t, use))
}

func mustInstantiate(t *testing.T, f *stepstest.Fake, use string) (*steps.Created, spec.Ref) {
	t.Helper()
	c, ref, err := instantiate(t, f, use)
	if err != nil {
		t.Fatalf("instantiating %s: %v", use, err)
	}
	return c, ref
}

// field reads a field of a rendered object.
func field(t *testing.T, u *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, ok, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	if err != nil || !ok {
		t.Fatalf("%s has no %s (%v)", u.GetName(), strings.Join(path, "."), err)
	}
	return v
}

func wantField(t *testing.T, u *unstructured.Unstructured, want any, path ...string) {
	t.Helper()
	if diff := cmp.Diff(want, field(t, u, path...)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", strings.Join(path, "."), diff)
	}
}

func requests(t *testing.T, u *unstructured.Unstructured) any {
	t.Helper()
	return field(t, u, "spec", "containers").([]any)[0].(map[string]any)["resources"].(map[string]any)["requests"]
}

func TestInstantiateFixture(t *testing.T) {
	f := stepstest.New(t)
	c, ref := mustInstantiate(t, f, "fixture: pod-extended\nname: p1")
	if ref != "pod/p1" || c.GVR.Resource != "pods" || !c.Namespaced {
		t.Errorf("ref %s, GVR %v, namespaced %v; want pod/p1, pods, namespaced", ref, c.GVR, c.Namespaced)
	}
	u := c.Object
	if u.GetName() != "p1" || u.GetNamespace() != stepstest.Namespace {
		t.Errorf("rendered %s/%s, want %s/p1", u.GetNamespace(), u.GetName(), stepstest.Namespace)
	}
	if diff := cmp.Diff(map[string]any{gpu: "1"}, requests(t, u)); diff != "" {
		t.Errorf("params not substituted (-want +got):\n%s", diff)
	}
	wantField(t, u, map[string]any{steps.RunLabel: "t", steps.CaseLabel: stepstest.CaseHash}, "metadata", "labels")
	wantField(t, u, []any{map[string]any{"key": steps.TaintKey, "operator": "Equal", "value": "t", "effect": "NoSchedule"}}, "spec", "tolerations")
	// The fixture's own name param names the object when the use does not.
	if _, ref := mustInstantiate(t, f, "fixture: pod-extended"); ref != "pod/p1" {
		t.Errorf("default name: ref %s, want pod/p1", ref)
	}
}

// A case with Nodes of its own keeps its pods on them: they select the
// run's label, which the cluster's Nodes lack. A case without (the kubelet
// cases, on the cluster's real nodes) leaves the pod's placement alone.
func TestPodsOfAFakeNodeCaseArePinned(t *testing.T) {
	c, _ := mustInstantiate(t, stepstest.New(t, stepstest.FakeNodes()), "fixture: pod-extended\nname: p1")
	wantField(t, c.Object, map[string]any{steps.RunLabel: "t"}, "spec", "nodeSelector")
	c, _ = mustInstantiate(t, stepstest.New(t), "fixture: pod-extended\nname: p1")
	if _, found, _ := unstructured.NestedFieldNoCopy(c.Object.Object, "spec", "nodeSelector"); found {
		t.Error("a case without fake Nodes got a nodeSelector")
	}
	n, _ := mustInstantiate(t, stepstest.New(t, stepstest.FakeNodes()), "fixture: node\nname: n1")
	if n.Object.GetLabels()[steps.RunLabel] != "t" {
		t.Error("the case's Node lacks the run label its pods select")
	}
}

// Pods meet the Pod Security "restricted" level unless the case says
// otherwise, so that a cluster enforcing it by default admits them.
func TestPodsAreRestricted(t *testing.T) {
	c, _ := mustInstantiate(t, stepstest.New(t), "fixture: pod-extended\nname: p1")
	wantField(t, c.Object, map[string]any{"runAsNonRoot": true, "runAsUser": int64(65534), "runAsGroup": int64(65534),
		"seccompProfile": map[string]any{"type": "RuntimeDefault"}}, "spec", "securityContext")
	containers, _, _ := unstructured.NestedSlice(c.Object.Object, "spec", "containers")
	for _, ct := range containers {
		if diff := cmp.Diff(map[string]any{"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []any{"ALL"}}}, ct.(map[string]any)["securityContext"]); diff != "" {
			t.Errorf("container securityContext (-want +got):\n%s", diff)
		}
	}
	// A killed run's pods end by themselves.
	wantField(t, c.Object, int64(1800), "spec", "activeDeadlineSeconds")
	// What a case sets itself stays.
	c, _ = mustInstantiate(t, stepstest.New(t), "fixture: pod-extended\nname: p1\npatch:\n  spec:\n    securityContext: {runAsUser: 0}\n    activeDeadlineSeconds: 60")
	wantField(t, c.Object, int64(0), "spec", "securityContext", "runAsUser")
	wantField(t, c.Object, int64(60), "spec", "activeDeadlineSeconds")
}

func TestInstantiateVars(t *testing.T) {
	tests := []struct {
		name        string
		suite, cass string
		use         string
		want        map[string]any
	}{
		{name: "defaults", use: "{fixture: pod-extended}", want: map[string]any{gpu: "1"}},
		{name: "suite var feeds param", suite: `quantity: "3"`, use: "{fixture: pod-extended}", want: map[string]any{gpu: "3"}},
		{name: "case var beats suite var", suite: `quantity: "3"`, cass: `quantity: "2"`, use: "{fixture: pod-extended}", want: map[string]any{gpu: "2"}},
		{name: "use var beats case var", cass: `quantity: "2"`, use: `{fixture: pod-extended, vars: {quantity: "5"}}`, want: map[string]any{gpu: "5"}},
		{name: "use var sees case vars", cass: "kind: tpu", use: `{fixture: pod-extended, vars: {resource: "${domain}/${kind}"}}`,
			want: map[string]any{stepstest.Domain + "/tpu": "1"}},
		{name: "case var built from builtins", cass: `resource: "x.${prefix}/y"`, use: "{fixture: pod-extended}",
			want: map[string]any{"x." + stepstest.Prefix + "/y": "1"}},
		{name: "case var that is no param stays out", cass: "unrelated: 1", use: "{fixture: pod-extended}", want: map[string]any{gpu: "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := stepstest.New(t, stepstest.SuiteVars(tt.suite), stepstest.CaseVars(tt.cass))
			c, _ := mustInstantiate(t, f, tt.use)
			if diff := cmp.Diff(tt.want, requests(t, c.Object)); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// A param that is a whole "${x}" takes the value's type: here a map.
func TestInstantiateTypedParam(t *testing.T) {
	f := stepstest.New(t)
	c, ref := mustInstantiate(t, f, "{fixture: claim-capacity, name: c2, vars: {requests: {memory: 1Gi}}}")
	if ref != "resourceclaim/c2" || !c.Namespaced || c.Object.GetNamespace() != stepstest.Namespace {
		t.Errorf("ref %s namespaced %v ns %q", ref, c.Namespaced, c.Object.GetNamespace())
	}
	exactly := field(t, c.Object, "spec", "devices", "requests").([]any)[0].(map[string]any)["exactly"]
	want := map[string]any{"deviceClassName": stepstest.Prefix + "-gpu", "capacity": map[string]any{"requests": map[string]any{"memory": "1Gi"}}}
	if diff := cmp.Diff(want, exactly); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestInstantiateNode(t *testing.T) {
	f := stepstest.New(t)
	c, ref := mustInstantiate(t, f, `
fixture: node
name: n1
patch:
  metadata: {labels: {extra: "${name}"}}
  spec: {taints: [{key: a, effect: NoExecute}]}
  status: {conditions: null, capacity: {"${domain}/gpu": "1"}}
`)
	u := c.Object
	if ref != "node/n1" || c.Namespaced || u.GetNamespace() != "" || u.GetName() != stepstest.Prefix+"-n1" {
		t.Errorf("ref %s namespaced %v namespace %q name %s", ref, c.Namespaced, u.GetNamespace(), u.GetName())
	}
	// Maps merge: the fixture's label stays, the patch's joins it, the run's are added.
	wantField(t, u, map[string]any{"kubernetes.io/hostname": stepstest.Prefix + "-n1", "extra": "n1",
		steps.RunLabel: "t", steps.CaseLabel: stepstest.CaseHash}, "metadata", "labels")
	wantField(t, u, map[string]any{"cpu": "8", "memory": "32Gi", "pods": "110", gpu: "1"}, "status", "capacity")
	// Null deletes.
	if _, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "conditions"); ok {
		t.Errorf("status.conditions kept, the patch deleted it")
	}
	// The run's taint comes after the patch's.
	wantField(t, u, []any{
		map[string]any{"key": "a", "effect": "NoExecute"},
		map[string]any{"key": steps.TaintKey, "value": "t", "effect": "NoSchedule"},
	}, "spec", "taints")
	if _, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "tolerations"); ok {
		t.Errorf("a node got a toleration")
	}
}

func TestInstantiatePatchListsReplace(t *testing.T) {
	f := stepstest.New(t)
	c, _ := mustInstantiate(t, f, `
fixture: pod-extended
name: p2
patch:
  spec:
    containers:
    - {name: first, image: busybox}
    tolerations: [{key: x, operator: Exists}]
`)
	containers, _, _ := unstructured.NestedSlice(c.Object.Object, "spec", "containers")
	if len(containers) != 1 || containers[0].(map[string]any)["image"] != "busybox" || containers[0].(map[string]any)["name"] != "first" {
		t.Errorf("the patch's list did not replace the fixture's: %v", containers)
	}
	wantField(t, c.Object, []any{
		map[string]any{"key": "x", "operator": "Exists"},
		map[string]any{"key": steps.TaintKey, "operator": "Equal", "value": "t", "effect": "NoSchedule"},
	}, "spec", "tolerations")
}

func TestInstantiateDeviceClass(t *testing.T) {
	f := stepstest.New(t)
	c, ref := mustInstantiate(t, f, "{fixture: class-capacity, name: gpu-shared}")
	if ref != "deviceclass/gpu-shared" || c.Namespaced || c.Object.GetNamespace() != "" {
		t.Errorf("ref %s namespaced %v ns %q", ref, c.Namespaced, c.Object.GetNamespace())
	}
	wantField(t, c.Object, stepstest.Prefix+"-gpu-shared", "metadata", "name")
	wantField(t, c.Object, stepstest.Domain+"/gpu.shared", "spec", "extendedResourceName")
	wantField(t, c.Object, map[string]any{"shares": "1"}, "spec", "extendedResourceCapacityRequests", "requests")
	wantField(t, c.Object, []any{map[string]any{"cel": map[string]any{"expression": `device.driver == "` + stepstest.Driver + `"`}}}, "spec", "selectors")
}

func TestInstantiateInline(t *testing.T) {
	f := stepstest.New(t, stepstest.CaseVars("img: busybox\nn: 3"))
	c, ref := mustInstantiate(t, f, `
name: s1
object:
  apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: "${prefix}-${name}"}
  spec: {driver: "${driver}", count: "${n}", image: "${img}"}
`)
	if ref != "resourceslice/s1" || c.Namespaced || c.GVR.Resource != "resourceslices" {
		t.Errorf("ref %s namespaced %v GVR %v", ref, c.Namespaced, c.GVR)
	}
	wantField(t, c.Object, map[string]any{"driver": stepstest.Driver, "count": "3", "image": "busybox"}, "spec")
	wantField(t, c.Object, stepstest.Prefix+"-s1", "metadata", "name")
}

func TestInstantiateErrors(t *testing.T) {
	tests := []struct {
		name, use string
		fails     []string
	}{
		{name: "undefined variable in an inline object", use: `
name: x
object:
  apiVersion: v1
  kind: Pod
  metadata: {name: x}
  spec:
    nodeName: "${nope}"
`, fails: []string{"rendering inline object", "line 8: undefined variable ${nope}"}},
		{name: "fixture params are not case vars", use: "{fixture: pod-extended, patch: {metadata: {labels: {q: \"${quantity}\"}}}}",
			fails: []string{"patch of fixture pod-extended", "undefined variable ${quantity}"}},
		{name: "undefined variable in use vars", use: `{fixture: pod-extended, vars: {quantity: "${nope}"}}`,
			fails: []string{"variable quantity", "undefined variable ${nope}"}},
		{name: "unknown fixture", use: "{fixture: nope}", fails: []string{`unknown fixture "nope"`}},
		{name: "kind not served", use: "{name: x, object: {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}}",
			fails: []string{"inline object", "the cluster does not serve /v1, Kind=ConfigMap"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := stepstest.New(t)
			_, _, err := instantiate(t, f, tt.use)
			mustFail(t, err, tt.fails...)
		})
	}
}

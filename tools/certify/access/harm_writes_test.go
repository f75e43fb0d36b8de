package access_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/draconform/draconform/tools/certify/access"
)

// The writes of issue 55: each is the run's by its labels and names, so
// that a policy confining only which objects are written lets it through,
// and each does harm beyond the run.

var claimTemplates = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaimtemplates"}

// testRuntimeClass is the RuntimeClass the administrator has, which a pod
// must name for the API server to admit it as far as the policy.
const testRuntimeClass = "draconform-test-runc"

// adminAccessLabel marks a namespace whose claims may ask for admin
// access to devices in use.
const adminAccessLabel = "resource.kubernetes.io/admin-access"

// podWith is restrictedPod with change applied to its spec.
func podWith(name, ns string, change func(spec map[string]any)) map[string]any {
	p := restrictedPod(name, ns, "")
	change(p["spec"].(map[string]any))
	return p
}

func container(spec map[string]any) map[string]any {
	return spec["containers"].([]any)[0].(map[string]any)
}

func requests(spec map[string]any, rl map[string]any) {
	container(spec)["resources"] = map[string]any{"requests": rl, "limits": rl}
}

const (
	refusedPriority  = "names no priorityClassName"
	refusedNode      = "names no nodeName, and no Node by kubernetes.io/hostname"
	refusedAffinity  = "has pod affinity to its own namespace's pods only"
	refusedResources = "requests at most cpu"
	refusedNonRoot   = "runs as non-root"
	refusedProfiles  = "never unconfined seccomp or AppArmor"
	refusedVolumes   = "mounts only emptyDir"
	refusedRuntime   = "names no runtimeClassName"
	refusedAll       = "asks for no device with allocationMode All"
	refusedTaint     = "carries its run's taint"
)

// podHarms: the pods that pass Pod Security restricted aim at
// restrictedNS, where it is enforced; those it refuses aim at
// privilegedNS, where it is not, to show the policy refusing them itself.
func podHarms() []write {
	hostname := map[string]any{"key": corev1.LabelHostname, "operator": "In", "values": []any{foreignNode}}
	return []write{
		{what: "a pod of priorityClassName system-node-critical", gvr: podsGVR, ns: restrictedNS, refusal: refusedPriority,
			obj: podWith("critical", restrictedNS, func(s map[string]any) { s["priorityClassName"] = "system-node-critical" })},
		{what: "a pod whose nodeSelector names " + foreignNode, gvr: podsGVR, ns: restrictedNS, refusal: refusedNode,
			obj: podWith("selects-real-node", restrictedNS, func(s map[string]any) { s["nodeSelector"] = map[string]any{corev1.LabelHostname: foreignNode} })},
		{what: "a pod whose required node affinity names " + foreignNode + " by metadata.name", gvr: podsGVR, ns: restrictedNS, refusal: refusedNode,
			obj: podWith("affine-real-node", restrictedNS, func(s map[string]any) {
				s["affinity"] = map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
					"nodeSelectorTerms": []any{map[string]any{"matchFields": []any{map[string]any{"key": "metadata.name", "operator": "In", "values": []any{foreignNode}}}}}}}}
			})},
		{what: "a pod whose preferred node affinity names " + foreignNode + " by hostname", gvr: podsGVR, ns: restrictedNS, refusal: refusedNode,
			obj: podWith("prefers-real-node", restrictedNS, func(s map[string]any) {
				s["affinity"] = map[string]any{"nodeAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{
					map[string]any{"weight": int64(100), "preference": map[string]any{"matchExpressions": []any{hostname}}}}}}
			})},
		{what: "a pod with affinity to the cluster's pods in every namespace", gvr: podsGVR, ns: restrictedNS, refusal: refusedAffinity,
			obj: podWith("beside-prod", restrictedNS, func(s map[string]any) {
				s["affinity"] = map[string]any{"podAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
					"topologyKey": corev1.LabelHostname, "namespaceSelector": map[string]any{},
					"labelSelector": map[string]any{"matchLabels": map[string]any{"app": "shared-gpu"}}}}}}
			})},
		{what: "a pod requesting 64 CPUs", gvr: podsGVR, ns: restrictedNS, refusal: refusedResources,
			obj: podWith("hog", restrictedNS, func(s map[string]any) { requests(s, map[string]any{"cpu": "64"}) })},
		{what: "a pod requesting a real GPU (nvidia.com/gpu)", gvr: podsGVR, ns: restrictedNS, refusal: refusedResources,
			obj: podWith("real-gpu", restrictedNS, func(s map[string]any) { requests(s, map[string]any{"nvidia.com/gpu": "1"}) })},
		{what: "a pod requesting 100 of its case's extended resource", gvr: podsGVR, ns: restrictedNS, refusal: refusedResources,
			obj: podWith("many-shares", restrictedNS, func(s map[string]any) { requests(s, map[string]any{restrictedNS + ".draconform.test/share": "100"}) })},
		{what: "a pod with a PersistentVolumeClaim volume (restricted admits it)", gvr: podsGVR, ns: restrictedNS, refusal: refusedVolumes,
			obj: podWith("pvc", restrictedNS, func(s map[string]any) {
				s["volumes"] = []any{map[string]any{"name": "data", "persistentVolumeClaim": map[string]any{"claimName": "prod-data"}}}
			})},
		{what: "a pod with a generic ephemeral volume, which provisions storage (restricted admits it)", gvr: podsGVR, ns: restrictedNS, refusal: refusedVolumes,
			obj: podWith("ephemeral", restrictedNS, func(s map[string]any) {
				s["volumes"] = []any{map[string]any{"name": "scratch", "ephemeral": map[string]any{"volumeClaimTemplate": map[string]any{"spec": map[string]any{
					"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Ti"}}}}}}}
			})},
		{what: "a pod naming runtimeClassName " + testRuntimeClass, gvr: podsGVR, ns: restrictedNS, refusal: refusedRuntime,
			obj: podWith("runtime", restrictedNS, func(s map[string]any) { s["runtimeClassName"] = testRuntimeClass })},
		{what: "a pod running as root (runAsUser 0), in a namespace that does not enforce restricted", gvr: podsGVR, ns: privilegedNS, refusal: refusedNonRoot,
			obj: podWith("root", privilegedNS, func(s map[string]any) {
				s["securityContext"] = map[string]any{"runAsUser": int64(0), "seccompProfile": map[string]any{"type": "RuntimeDefault"}}
			})},
		{what: "a pod under seccomp Unconfined, in a namespace that does not enforce restricted", gvr: podsGVR, ns: privilegedNS, refusal: refusedProfiles,
			obj: podWith("seccomp", privilegedNS, func(s map[string]any) {
				s["securityContext"].(map[string]any)["seccompProfile"] = map[string]any{"type": "Unconfined"}
			})},
		{what: "a pod under AppArmor Unconfined, in a namespace that does not enforce restricted", gvr: podsGVR, ns: privilegedNS, refusal: refusedProfiles,
			obj: podWith("apparmor", privilegedNS, func(s map[string]any) {
				s["securityContext"].(map[string]any)["appArmorProfile"] = map[string]any{"type": "Unconfined"}
			})},
	}
}

// claimRequest is a device request of the case restrictedNS's class gpu,
// with extra fields.
func claimRequest(extra map[string]any) map[string]any {
	exactly := map[string]any{"deviceClassName": restrictedNS + "-gpu"}
	for k, v := range extra {
		exactly[k] = v
	}
	return map[string]any{"name": "req-0", "exactly": exactly}
}

func claimWith(name string, request map[string]any) map[string]any {
	return map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta(name, restrictedNS, nil),
		"spec": map[string]any{"devices": map[string]any{"requests": []any{request}}}}
}

func templateWith(name string, request map[string]any) map[string]any {
	return map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": meta(name, restrictedNS, nil),
		"spec": map[string]any{"spec": map[string]any{"devices": map[string]any{"requests": []any{request}}}}}
}

func firstAvailable(mode string) map[string]any {
	return map[string]any{"name": "req-0", "firstAvailable": []any{
		map[string]any{"name": "one", "deviceClassName": restrictedNS + "-gpu", "allocationMode": "ExactCount", "count": int64(1)},
		map[string]any{"name": "any", "deviceClassName": restrictedNS + "-gpu", "allocationMode": mode}}}
}

// fakeNode is a Node of the case restrictedNS, with taints.
func fakeNode(name string, taints ...map[string]any) map[string]any {
	n := map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": meta(name, restrictedNS, map[string]string{corev1.LabelHostname: name})}
	if len(taints) > 0 {
		list := make([]any, len(taints))
		for i, t := range taints {
			list[i] = t
		}
		n["spec"] = map[string]any{"taints": list}
	}
	return n
}

func runTaint(run string) map[string]any {
	return map[string]any{"key": access.RunLabel, "value": run, "effect": "NoSchedule"}
}

func claimAndNodeHarms() []write {
	return []write{
		{what: "a ResourceClaim taking every device of its class (allocationMode All)", gvr: resourceClaims, ns: restrictedNS, refusal: refusedAll,
			obj: claimWith("all", claimRequest(map[string]any{"allocationMode": "All"}))},
		{what: "a ResourceClaim whose second firstAvailable subrequest takes every device", gvr: resourceClaims, ns: restrictedNS, refusal: refusedAll,
			obj: claimWith("all-subrequest", firstAvailable("All"))},
		{what: "a ResourceClaim asking for admin access to devices in use (its namespace is labelled for it)", gvr: resourceClaims, ns: restrictedNS, refusal: refusedAll,
			obj: claimWith("admin-access", claimRequest(map[string]any{"adminAccess": true}))},
		{what: "a ResourceClaimTemplate taking every device of its class", gvr: claimTemplates, ns: restrictedNS, refusal: refusedAll,
			obj: templateWith("all-template", claimRequest(map[string]any{"allocationMode": "All"}))},
		{what: "a fake Node without the run's taint", gvr: nodesGVR, refusal: refusedTaint, obj: fakeNode(restrictedNS + "-untainted")},
		{what: "a fake Node tainted for another run", gvr: nodesGVR, refusal: refusedTaint, obj: fakeNode(restrictedNS+"-other-run", runTaint("another"))},
	}
}

// harmlessRunWrites are what the suites' pods, claims and Nodes are, as
// steps render them (see steps.guard, steps.restrict): none is refused.
func harmlessRunWrites() []write {
	run := strings.SplitN(restrictedNS, "-", 3)[1]
	toleration := []any{map[string]any{"key": access.RunLabel, "operator": "Equal", "value": run, "effect": "NoSchedule"}}
	return []write{
		{what: "a pod pinned to the run's Nodes by its label, tolerating its taint, asking for its case's resource", gvr: podsGVR, ns: restrictedNS,
			obj: podWith("pinned", restrictedNS, func(s map[string]any) {
				s["nodeSelector"] = map[string]any{access.RunLabel: run}
				s["tolerations"] = toleration
				s["activeDeadlineSeconds"] = int64(1800)
				requests(s, map[string]any{restrictedNS + ".draconform.test/gpu.shared": "5"})
			})},
		{what: "a pod naming its case's Node by hostname", gvr: podsGVR, ns: restrictedNS,
			obj: podWith("own-hostname", restrictedNS, func(s map[string]any) { s["nodeSelector"] = map[string]any{corev1.LabelHostname: restrictedNS + "-n1"} })},
		{what: "a driver profile's pod: a node label, affinity to its own pods, a little CPU", gvr: podsGVR, ns: restrictedNS,
			obj: podWith("profile", restrictedNS, func(s map[string]any) {
				s["nodeSelector"] = map[string]any{"kubernetes.io/os": "linux"}
				s["affinity"] = map[string]any{"podAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
					"topologyKey": corev1.LabelHostname, "labelSelector": map[string]any{"matchLabels": map[string]any{"draconform.dev/colocate": restrictedNS}}}}}}
				requests(s, map[string]any{restrictedNS + ".draconform.test/share": "1", "cpu": "100m", "memory": "64Mi"})
			})},
		{what: "a pod with a sidecar, asking for its case's implicit extended resource", gvr: podsGVR, ns: restrictedNS,
			obj: podWith("sidecar", restrictedNS, func(s map[string]any) {
				side := map[string]any{"name": "sidecar", "image": "registry.k8s.io/pause:3.10", "restartPolicy": "Always",
					"securityContext": container(s)["securityContext"]}
				s["initContainers"] = []any{side}
				requests(s, map[string]any{"deviceclass.resource.kubernetes.io/" + restrictedNS + "-gpu": "1"})
			})},
		{what: "a ResourceClaim with firstAvailable subrequests of exact counts", gvr: resourceClaims, ns: restrictedNS,
			obj: claimWith("first-available", firstAvailable("ExactCount"))},
		{what: "a ResourceClaimTemplate of the case's class", gvr: claimTemplates, ns: restrictedNS,
			obj: templateWith("template", claimRequest(map[string]any{"allocationMode": "ExactCount", "count": int64(1)}))},
	}
}

// adminExtras are what the administrator has that the writes above need:
// a RuntimeClass, and the runner allowed to write ResourceClaimTemplates
// in restrictedNS (its role grants none: the policy must refuse a harmful
// one where a cluster's RBAC allows it). It returns what removes them,
// once the runner's dry runs pass RBAC.
func adminExtras(ctx context.Context, t *testing.T, admin kubernetes.Interface, dyn dynamic.Interface) func() {
	t.Helper()
	rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: testRuntimeClass}, Handler: "runc"}
	if _, err := admin.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "claim-templates", Namespace: restrictedNS},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaimtemplates"}, Verbs: []string{"create"}}}}
	if _, err := admin.RbacV1().Roles(restrictedNS).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "claim-templates", Namespace: restrictedNS},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "claim-templates"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: runnerSA, Namespace: runnerNS}}}
	if _, err := admin.RbacV1().RoleBindings(restrictedNS).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The authorizer learns of the binding through an informer.
	w := harmlessRunWrites()[len(harmlessRunWrites())-1]
	var last error
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = dyn.Resource(claimTemplates).Namespace(restrictedNS).Create(ctx, &unstructured.Unstructured{Object: w.obj}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last == nil, nil
	}); err != nil {
		t.Fatalf("the runner cannot write a ResourceClaimTemplate once granted: %v", last)
	}
	return func() {
		if err := admin.NodeV1().RuntimeClasses().Delete(ctx, testRuntimeClass, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting RuntimeClass %s: %v", testRuntimeClass, err)
		}
	}
}

// taintStays: a fake Node the runner made keeps its run's taint; an
// update that keeps it passes.
func taintStays(ctx context.Context, t *testing.T, dyn dynamic.Interface) {
	t.Helper()
	run := strings.SplitN(restrictedNS, "-", 3)[1]
	nodes := dyn.Resource(nodesGVR)
	name := restrictedNS + "-n9"
	created, err := nodes.Create(ctx, &unstructured.Unstructured{Object: fakeNode(name, runTaint(run))}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the runner cannot make a fake Node with its taint: %v", err)
	}
	defer func() {
		if err := nodes.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting Node %s: %v", name, err)
		}
	}()
	var last error
	for _, keep := range []bool{true, false} {
		// The node controllers may update the Node meanwhile: retry on a conflict.
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			n, err := nodes.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			taints, _, _ := unstructured.NestedSlice(n.Object, "spec", "taints")
			kept := []any{}
			for _, tt := range taints {
				if tt.(map[string]any)["key"] != access.RunLabel || keep {
					kept = append(kept, tt)
				}
			}
			_ = unstructured.SetNestedSlice(n.Object, kept, "spec", "taints")
			_, last = nodes.Update(ctx, n, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			return !apierrors.IsConflict(last), nil
		})
		switch {
		case err != nil:
			t.Errorf("updating Node %s: %v (%v)", name, err, last)
		case keep && last != nil:
			t.Errorf("an update keeping the run's taint was refused: %v", last)
		case !keep && (last == nil || !strings.Contains(last.Error(), refusedTaint)):
			t.Errorf("an update removing the run's taint was not refused by the policy: %v", last)
		case !keep:
			t.Logf("removing the run's taint from %s: refused: %v", created.GetName(), last)
		}
	}
}

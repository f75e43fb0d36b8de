package access_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/lang/loader"
)

// The namespaces the harmful writes aim at, made by the administrator: one
// that enforces privileged (what the ownership-only policy let the runner
// create itself) and one that enforces restricted (what a run creates).
// Their run id is no run's: they stand for any run.
const (
	hostileRun   = "zzzzz"
	privilegedNS = "dc-" + hostileRun + "-0000aa"
	restrictedNS = "dc-" + hostileRun + "-0000bb"
)

var (
	namespaces   = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	podsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodesGVR     = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	roleBindings = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}
)

// write is one dry-run create as the runner, and the policy's message that
// must refuse it ("" for a write of the kind a run makes, which must pass).
type write struct {
	what    string
	gvr     schema.GroupVersionResource
	ns      string
	obj     map[string]any
	refusal string
}

// TestConfinedWrites is the confinement of TestProductionLikeClusterAsNonAdmin
// alone, without its runs of the suite: the same cluster, the same shipped
// manifest, the same writes.
func TestConfinedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	const cell = "capacity-on"
	built, err := providers.Build(ctx, providers.Config{Name: "prototype", OutDir: filepath.Join(dir, "cp"), Log: testLog{t},
		Local: providers.LocalOptions{Version: "v1.37.2"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := built.New()
	if err != nil {
		t.Fatal(err)
	}
	defer providers.Closer(p, testLog{t})()
	c, err := cluster.StartCell(ctx, p, cell, cluster.CellGates(b.Cells[cell]), nil)
	if err != nil {
		t.Fatal(err)
	}
	admin := kubernetes.NewForConfigOrDie(c.RESTConfig())
	foreignCfg := c.RESTConfig()
	foreignCfg.Impersonate = rest.ImpersonationConfig{UserName: foreignUser, Groups: []string{"system:masters"}}
	seedProduction(ctx, t, foreignCfg)
	kc, token := runnerKubeconfig(ctx, t, admin, c.RESTConfig(), dir)
	waitConfined(ctx, t, kubernetes.NewForConfigOrDie(mustLoad(t, kc)))
	confinedWrites(ctx, t, c.RESTConfig(), token, true)
	editedNotConfined(ctx, t, admin, kc)
	runsRefusedUnconfined(ctx, t, admin, kc)
}

// confinedWrites makes, with the runner's token in a client of its own (not
// draconform's, whose checks would stop them first), each harmful write the
// ownership-only policy let through, and sees the cluster refuse it with
// the policy's reason; and the writes a run makes, which must still pass.
// All are dry runs: on a cluster that lets them through, nothing is made;
// but withNode, a fake Node is made (an update's refusal needs one), which
// a DaemonSet tolerating every taint follows: the production-like test,
// which then checks that its run changes no foreign object, goes without.
func confinedWrites(ctx context.Context, t *testing.T, adminCfg *rest.Config, token string, withNode bool) {
	t.Helper()
	admin := kubernetes.NewForConfigOrDie(adminCfg)
	defer hostileNamespaces(ctx, t, admin)()
	cfg := &rest.Config{Host: adminCfg.Host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: adminCfg.CAData, CAFile: adminCfg.CAFile}}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer adminExtras(ctx, t, admin, dyn)()
	for _, w := range append(harmfulWrites(), runWrites()...) {
		u := &unstructured.Unstructured{Object: w.obj}
		var ri dynamic.ResourceInterface = dyn.Resource(w.gvr)
		if w.ns != "" {
			ri = dyn.Resource(w.gvr).Namespace(w.ns)
		}
		_, err := ri.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case w.refusal == "" && err != nil:
			t.Errorf("%s: refused, though a run writes it: %v", w.what, err)
		case w.refusal == "":
		case err == nil:
			t.Errorf("%s: the cluster let the runner write it", w.what)
		case !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), w.refusal):
			t.Errorf("%s: refused, but not by the policy's rule %q: %v", w.what, w.refusal, err)
		default:
			t.Logf("%s: refused: %v", w.what, err)
		}
	}
	if withNode {
		taintStays(ctx, t, dyn)
	}
	foreignLabelledStays(ctx, t, admin, dyn)
	logReadsOnlyWhereBound(ctx, t, cfg)
}

// hostileNamespaces makes the two namespaces the writes aim at, and
// returns what removes them (the run's check for leftovers looks for
// namespaces with the run label).
func hostileNamespaces(ctx context.Context, t *testing.T, admin kubernetes.Interface) func() {
	t.Helper()
	for name, level := range map[string]string{privilegedNS: "privileged", restrictedNS: "restricted"} {
		// Admin access to devices is for namespaces so labelled: the
		// policy refuses it to the runner all the same.
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: runLabels(name, map[string]string{access.PodSecurityEnforce: level, adminAccessLabel: "true"})}}
		if _, err := admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatalf("namespace %s: %v", name, err)
		}
		waitDefaultSA(ctx, t, admin, name)
	}
	return func() {
		for _, name := range []string{privilegedNS, restrictedNS} {
			if err := admin.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Errorf("deleting namespace %s: %v", name, err)
			}
		}
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			_, e1 := admin.CoreV1().Namespaces().Get(ctx, privilegedNS, metav1.GetOptions{})
			_, e2 := admin.CoreV1().Namespaces().Get(ctx, restrictedNS, metav1.GetOptions{})
			return apierrors.IsNotFound(e1) && apierrors.IsNotFound(e2), nil
		})
		if err != nil {
			t.Errorf("the test's namespaces are still there after a minute: %v", err)
		}
	}
}

// runLabels are the labels of an object of the case whose prefix is
// prefix (dc-<run>-<case>), with extra.
func runLabels(prefix string, extra map[string]string) map[string]string {
	parts := strings.SplitN(prefix, "-", 3)
	l := map[string]string{access.RunLabel: parts[1], access.CaseLabel: parts[2]}
	for k, v := range extra {
		l[k] = v
	}
	return l
}

func meta(name, prefix string, extra map[string]string) map[string]any {
	labels := map[string]any{}
	for k, v := range runLabels(prefix, extra) {
		labels[k] = v
	}
	return map[string]any{"name": name, "labels": labels}
}

// restrictedPod is a pod Pod Security restricted admits, as the suite's
// pods are (steps give each this securityContext).
func restrictedPod(name, ns, nodeName string) map[string]any {
	spec := map[string]any{
		"securityContext": map[string]any{"runAsNonRoot": true, "runAsUser": int64(65534), "seccompProfile": map[string]any{"type": "RuntimeDefault"}},
		"containers": []any{map[string]any{"name": "main", "image": "registry.k8s.io/pause:3.10",
			"securityContext": map[string]any{"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []any{"ALL"}}}}},
	}
	if nodeName != "" {
		spec["nodeName"] = nodeName
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta(name, ns, nil), "spec": spec}
}

// harmfulWrites are issue 40's: each is labelled as the run's, so that the
// ownership-only policy let it through, and each would reach past the run.
func harmfulWrites() []write {
	// Not privileged: true, which this API server refuses by itself
	// (--allow-privileged=false); what it does allow is root in the host's
	// namespaces with the host's / mounted.
	privileged := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta("root", privilegedNS, nil), "spec": map[string]any{
		"hostPID": true, "hostNetwork": true,
		"containers": []any{map[string]any{"name": "main", "image": "registry.k8s.io/pause:3.10",
			"securityContext": map[string]any{"runAsUser": int64(0), "capabilities": map[string]any{"add": []any{"SYS_ADMIN"}}},
			"volumeMounts":    []any{map[string]any{"name": "host", "mountPath": "/host"}}}},
		"volumes": []any{map[string]any{"name": "host", "hostPath": map[string]any{"path": "/"}}},
	}}
	const other = "dc-" + hostileRun + "-0000cc"
	w := []write{
		{what: "a namespace enforcing Pod Security privileged", gvr: namespaces, refusal: "a namespace of draconform's",
			obj: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta(other, other, map[string]string{access.PodSecurityEnforce: "privileged"})}},
		{what: "a namespace choosing no Pod Security level", gvr: namespaces, refusal: "a namespace of draconform's",
			obj: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta(other, other, nil)}},
		{what: "a root pod in the host's PID and network namespaces with SYS_ADMIN and the host's / mounted (in a privileged namespace of the run's)", gvr: podsGVR, ns: privilegedNS,
			refusal: "a pod of draconform's is not privileged", obj: privileged},
		{what: "a pod with nodeName " + foreignNode + ", a real Node", gvr: podsGVR, ns: restrictedNS,
			refusal: "a pod of draconform's names no nodeName", obj: restrictedPod("pinned", restrictedNS, foreignNode)},
		{what: "a ResourceSlice of the real driver gpu.nvidia.com on " + foreignNode, gvr: resourceSlices, refusal: "a ResourceSlice of draconform's",
			obj: slice(restrictedNS+"-fake-gpus", "gpu.nvidia.com", map[string]any{"nodeName": foreignNode})},
		{what: "a ResourceSlice of the real driver gpu.nvidia.com on the case's Node", gvr: resourceSlices, refusal: "a ResourceSlice of draconform's",
			obj: slice(restrictedNS+"-vendor-gpus", "gpu.nvidia.com", map[string]any{"nodeName": restrictedNS + "-n1"})},
		{what: "a ResourceSlice of the case's driver on " + foreignNode, gvr: resourceSlices, refusal: "a ResourceSlice of draconform's",
			obj: slice(restrictedNS+"-on-real-node", restrictedNS+".draconform.test", map[string]any{"nodeName": foreignNode})},
		{what: "a DeviceClass whose extendedResourceName is nvidia.com/gpu (the newest class wins the real pods' requests)", gvr: deviceClasses,
			refusal: "a DeviceClass of draconform's",
			obj: map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta(restrictedNS+"-capture", restrictedNS, nil),
				"spec": map[string]any{"extendedResourceName": "nvidia.com/gpu",
					"selectors": []any{map[string]any{"cel": map[string]any{"expression": `device.driver == "gpu.nvidia.com"`}}}}}},
		{what: "a ResourceClaim of the real class gpu.nvidia.com", gvr: resourceClaims, ns: restrictedNS, refusal: "a ResourceClaim or ResourceClaimTemplate of draconform's asks only",
			obj: claim("foreign-class", restrictedNS, "gpu.nvidia.com")},
		{what: "a RoleBinding granting the log role to another user in the run's namespace", gvr: roleBindings, ns: restrictedNS,
			refusal: "a RoleBinding of draconform's", obj: logBinding("to-another", restrictedNS, foreignUser, access.LogRoleName)},
		{what: "a RoleBinding granting the log role to the runner in kube-system", gvr: roleBindings, ns: "kube-system",
			refusal: "draconform writes namespaced objects only in its own namespaces", obj: logBinding("in-kube-system", "kube-system", runnerUser, access.LogRoleName)},
		{what: "a RoleBinding granting the read role to another user in the run's namespace", gvr: roleBindings, ns: restrictedNS,
			refusal: "a RoleBinding of draconform's", obj: logBinding("reads-to-another", restrictedNS, foreignUser, access.ReadRoleName)},
		{what: "a RoleBinding granting ClusterRole admin to the runner in the run's namespace", gvr: roleBindings, ns: restrictedNS,
			refusal: "attempting to grant RBAC permissions not currently held", obj: logBinding("admin", restrictedNS, runnerUser, "admin")},
	}
	return append(append(w, podHarms()...), claimAndNodeHarms()...)
}

// logBinding is a RoleBinding of the case restrictedNS, of ClusterRole role
// to the User user.
func logBinding(name, ns, user, role string) map[string]any {
	return map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": meta(name, restrictedNS, nil),
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}}}
}

// slice is a ResourceSlice of the case restrictedNS, with where (nodeName
// or allNodes).
func slice(name, driver string, where map[string]any) map[string]any {
	spec := map[string]any{"driver": driver, "pool": map[string]any{"name": name, "generation": int64(1), "resourceSliceCount": int64(1)},
		"devices": []any{map[string]any{"name": "gpu-0"}}}
	for k, v := range where {
		spec[k] = v
	}
	return map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": meta(name, restrictedNS, nil), "spec": spec}
}

func claim(name, ns, class string) map[string]any {
	return map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta(name, ns, nil),
		"spec": map[string]any{"devices": map[string]any{"requests": []any{map[string]any{"name": "req-0",
			"exactly": map[string]any{"deviceClassName": class}}}}}}
}

// runWrites are what a case of the suite writes, named as steps name
// them: the policy must let each through.
func runWrites() []write {
	const own = "dc-" + hostileRun + "-0000dd"
	node := restrictedNS + "-n1"
	return append([]write{
		{what: "the case's namespace, enforcing restricted", gvr: namespaces,
			obj: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta(own, own, map[string]string{access.PodSecurityEnforce: access.PodSecurityLevel})}},
		{what: "a restricted pod for the scheduler to place", gvr: podsGVR, ns: restrictedNS, obj: restrictedPod("p1", restrictedNS, "")},
		{what: "a restricted pod on the case's fake Node", gvr: podsGVR, ns: restrictedNS, obj: restrictedPod("p2", restrictedNS, node)},
		{what: "the case's fake Node, tainted for its run", gvr: nodesGVR, obj: fakeNode(node, runTaint(hostileRun))},
		{what: "a ResourceSlice of the case's driver on its Node", gvr: resourceSlices,
			obj: slice(restrictedNS+"-gpus", restrictedNS+".draconform.test", map[string]any{"nodeName": node})},
		{what: "the class barrier's ResourceSlice: a driver under the case's, on all Nodes", gvr: resourceSlices,
			obj: slice(restrictedNS+"-draconform-seen-1", "draconform-seen-1."+restrictedNS+".draconform.test", map[string]any{"allNodes": true})},
		{what: "a DeviceClass of the case's extended resource, selecting a vendor's driver", gvr: deviceClasses,
			obj: map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta(restrictedNS+"-gpu", restrictedNS, nil),
				"spec": map[string]any{"extendedResourceName": restrictedNS + ".draconform.test/gpu",
					"selectors": []any{map[string]any{"cel": map[string]any{"expression": `device.driver == "gpu.nvidia.com"`}}}}}},
		{what: "a ResourceClaim of the case's class", gvr: resourceClaims, ns: restrictedNS, obj: claim("c1", restrictedNS, restrictedNS+"-gpu")},
		{what: "the RoleBinding that lets the runner read its namespace's logs", gvr: roleBindings, ns: restrictedNS,
			obj: logBinding(access.LogRoleName, restrictedNS, runnerUser, access.LogRoleName)},
		{what: "the RoleBinding that lets the runner read its namespace's pods, events and ServiceAccount", gvr: roleBindings, ns: restrictedNS,
			obj: logBinding(access.ReadRoleName, restrictedNS, runnerUser, access.ReadRoleName)},
		{what: "the claim marking the present for a replay of claim events (spec: {})", gvr: resourceClaims, ns: restrictedNS,
			obj: map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta("draconform-replay-1", restrictedNS, nil), "spec": map[string]any{}}},
	}, harmlessRunWrites()...)
}

// foreignLabelledStays: an object someone else labelled with the run label,
// but not named as the run names its own (dc-<run>-), cannot be deleted or
// updated by the runner; the run's own namespace can.
func foreignLabelledStays(ctx context.Context, t *testing.T, admin kubernetes.Interface, dyn dynamic.Interface) {
	t.Helper()
	const name = "team-gpus"
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{access.RunLabel: hostileRun}}}
	if _, err := admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("namespace %s: %v", name, err)
	}
	defer func() {
		if err := admin.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting namespace %s: %v", name, err)
		}
	}()
	nss := dyn.Resource(corev1.SchemeGroupVersion.WithResource("namespaces"))
	dry := metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
	switch err := nss.Delete(ctx, name, dry); {
	case err == nil:
		t.Errorf("the runner may delete namespace %s, labelled %s=%s by someone else", name, access.RunLabel, hostileRun)
	case !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "draconform writes only objects it created"):
		t.Errorf("deleting namespace %s: refused, but not by the ownership rule: %v", name, err)
	default:
		t.Logf("deleting a foreign namespace that carries the run label: refused: %v", err)
	}
	if err := nss.Delete(ctx, restrictedNS, dry); err != nil {
		t.Errorf("the runner may not delete its own namespace %s: %v", restrictedNS, err)
	}
}

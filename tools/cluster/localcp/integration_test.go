package localcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/draconform/draconform/tools/cluster"
)

const testVersion = "v1.37.2"

// TestControlPlane runs the real binaries: start, schedule, restart the
// scheduler with other gates, schedule again, stop, and check that nothing
// is left running.
func TestControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real control plane (and may build it first)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	log := testLog{t}

	binDir, err := EnsureBinaries(ctx, BuildOptions{Version: testVersion, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	p := New(Options{BinDir: binDir, OutDir: t.TempDir(), Version: testVersion, Log: log})
	t.Cleanup(func() { _ = p.StopAll(context.Background()) })

	began := time.Now()
	c, err := p.Start(ctx, "it", cluster.GateState{cluster.Scheduler: {"DRAConsumableCapacity": false}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("control plane up in %s", time.Since(began).Round(time.Millisecond))
	lc := c.(*Cluster)
	if c.Name() != "local-v1.37.2/it" {
		t.Errorf("Name() = %q", c.Name())
	}
	if g := c.Gates()[cluster.Scheduler]; len(g) != 1 || g["DRAConsumableCapacity"] {
		t.Errorf("Gates()[scheduler] = %v before restart", g)
	}
	if _, err := p.Start(ctx, "it", nil); err == nil {
		t.Error("a second Start of a running cell succeeded")
	}

	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	createReadyNode(ctx, t, cs, "node-1")
	waitDefaultServiceAccount(ctx, t, cs)

	pod1 := bindPod(ctx, t, cs, "before-restart")

	began = time.Now()
	if err := lc.Restart(ctx, cluster.Scheduler, cluster.Gates{"DRAConsumableCapacity": true}); err != nil {
		t.Fatal(err)
	}
	t.Logf("scheduler restarted in %s", time.Since(began).Round(time.Millisecond))
	if g := c.Gates()[cluster.Scheduler]; len(g) != 1 || !g["DRAConsumableCapacity"] {
		t.Errorf("Gates()[scheduler] = %v after restart, want DRAConsumableCapacity=true", g)
	}
	schedLog, err := os.ReadFile(c.LogFiles()[cluster.Scheduler])
	if err != nil {
		t.Fatal(err)
	}
	for _, header := range []string{"with feature gates: DRAConsumableCapacity=false", "with feature gates: DRAConsumableCapacity=true"} {
		if !strings.Contains(string(schedLog), header) {
			t.Errorf("scheduler log lacks header %q", header)
		}
	}
	if strings.Index(string(schedLog), "DRAConsumableCapacity=true") < strings.Index(string(schedLog), "DRAConsumableCapacity=false") {
		t.Error("scheduler log headers are out of order")
	}

	pod2 := bindPod(ctx, t, cs, "after-restart")

	// A gate the binary does not know makes it exit; the error must say why.
	err = lc.Restart(ctx, cluster.Scheduler, cluster.Gates{"NoSuchGate": true})
	if err == nil || !strings.Contains(err.Error(), "unrecognized feature gate: NoSuchGate") ||
		!strings.Contains(err.Error(), c.LogFiles()[cluster.Scheduler]) {
		t.Errorf("Restart with an unknown gate: error %v, want one naming the gate and the log", err)
	}
	if g := c.Gates()[cluster.Scheduler]; len(g) != 1 || !g["DRAConsumableCapacity"] {
		t.Errorf("Gates()[scheduler] = %v after a failed restart, want the last good gates", g)
	}
	if err := lc.Restart(ctx, cluster.Scheduler, cluster.Gates{"DRAConsumableCapacity": true}); err != nil {
		t.Fatalf("restart after a failed restart: %v", err)
	}

	// The API server comes back on the same port and storage, so existing
	// clients and objects carry on.
	began = time.Now()
	if err := lc.Restart(ctx, cluster.APIServer, cluster.Gates{"DRAConsumableCapacity": true}); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver restarted in %s", time.Since(began).Round(time.Millisecond))
	if got, err := cs.CoreV1().Pods("default").Get(ctx, pod2.Name, metav1.GetOptions{}); err != nil || got.Spec.NodeName == "" {
		t.Errorf("pod %s after API server restart: %v (node %q)", pod2.Name, err, got.Spec.NodeName)
	}
	began = time.Now()
	if err := lc.Restart(ctx, cluster.ControllerManager, cluster.Gates{"DRAConsumableCapacity": true}); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-controller-manager restarted in %s", time.Since(began).Round(time.Millisecond))
	if g := c.Gates(); len(g) != 3 || !g[cluster.APIServer]["DRAConsumableCapacity"] || !g[cluster.ControllerManager]["DRAConsumableCapacity"] {
		t.Errorf("Gates() = %v after restarting all three components", g)
	}

	bindPod(ctx, t, cs, "after-all-restarts")
	checkGarbageCollector(ctx, t, cs, pod1)
	checkResourceClaimController(ctx, t, cs)

	pids := lc.pids()
	logs := c.LogFiles()
	if err := p.Stop(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(ctx, c); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	// etcd, three components, three scheduler starts after the first (one
	// failing), one each of API server and controller manager.
	if len(pids) != 9 {
		t.Errorf("recorded %d pids, want 9: %v", len(pids), pids)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("pid %d still exists after Stop: %v", pid, err)
		}
	}
	if kids := childrenOf(t, os.Getpid()); len(kids) > 0 {
		t.Errorf("test process still has children after Stop: %v", kids)
	}
	for comp, path := range logs {
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Errorf("%s log %s missing or empty: %v", comp, path, err)
		}
	}
	if _, ok := logs[Etcd]; !ok {
		t.Errorf("LogFiles() has no etcd entry: %v", logs)
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Helper()
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// createReadyNode makes a Node the scheduler accepts without a kubelet: the
// admission-added not-ready taint removed and allocatable filled in.
func createReadyNode(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating node: %v", err)
	}
	node.Spec.Taints = nil
	if node, err = cs.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("untainting node: %v", err)
	}
	res := corev1.ResourceList{
		corev1.ResourcePods:   resource.MustParse("110"),
		corev1.ResourceCPU:    resource.MustParse("8"),
		corev1.ResourceMemory: resource.MustParse("16Gi"),
	}
	node.Status.Capacity, node.Status.Allocatable = res, res
	node.Status.Conditions = []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "Test",
		LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
	}}
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("setting node status: %v", err)
	}
}

// waitDefaultServiceAccount waits for the controller manager to create the
// service account that admission assigns to every pod.
func waitDefaultServiceAccount(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	began := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("default service account never appeared: %v", err)
	}
	t.Logf("default service account after %s", time.Since(began).Round(time.Millisecond))
}

func testPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}

// bindPod creates a pod and watches it until the scheduler sets nodeName.
func bindPod(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string) *corev1.Pod {
	t.Helper()
	pods := cs.CoreV1().Pods("default")
	began := time.Now()
	pod, err := pods.Create(ctx, testPod(name), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating pod %s: %v", name, err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	w, err := pods.Watch(wctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", name).String(),
		ResourceVersion: pod.ResourceVersion,
	})
	if err != nil {
		t.Fatalf("watching pod %s: %v", name, err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			t.Fatalf("watching pod %s: %v", name, apierrors.FromObject(ev.Object))
		}
		if p, ok := ev.Object.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			t.Logf("pod %s bound to %s in %s", name, p.Spec.NodeName, time.Since(began).Round(time.Millisecond))
			return p
		}
	}
	t.Fatalf("pod %s not bound within a minute", name)
	return nil
}

// checkGarbageCollector deletes an owner and waits for its dependent to go,
// which only happens if the garbage collector runs with working credentials.
func checkGarbageCollector(ctx context.Context, t *testing.T, cs kubernetes.Interface, owner *corev1.Pod) {
	t.Helper()
	cms := cs.CoreV1().ConfigMaps("default")
	_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "dependent", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: owner.Name, UID: owner.UID}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating dependent: %v", err)
	}
	// No kubelet will confirm termination, so the pod must go at once.
	zero := int64(0)
	if err := cs.CoreV1().Pods("default").Delete(ctx, owner.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("deleting owner: %v", err)
	}
	began := time.Now()
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cms.Get(ctx, "dependent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("garbage collector did not delete the dependent of a deleted pod: %v", err)
	}
	t.Logf("garbage collector removed dependent in %s", time.Since(began).Round(time.Millisecond))
}

// checkResourceClaimController gives a pod a claim template and waits for
// the controller to create the claim and record it in the pod status.
func checkResourceClaimController(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	tmpl := &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Namespace: "default"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{
			Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
				Name:    "dev",
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "example.com"},
			}}},
		}},
	}
	if _, err := cs.ResourceV1().ResourceClaimTemplates("default").Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating claim template: %v", err)
	}
	pod := testPod("with-claim")
	tmplName := tmpl.Name
	pod.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "dev", ResourceClaimTemplateName: &tmplName}}
	pod.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "dev"}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod with claim: %v", err)
	}
	began := time.Now()
	var claimName string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, s := range p.Status.ResourceClaimStatuses {
			if s.ResourceClaimName != nil {
				claimName = *s.ResourceClaimName
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("resourceclaim controller did not create the pod's claim: %v", err)
	}
	if _, err := cs.ResourceV1().ResourceClaims("default").Get(ctx, claimName, metav1.GetOptions{}); err != nil {
		t.Fatalf("claim %s named in pod status: %v", claimName, err)
	}
	t.Logf("resourceclaim controller created claim %s in %s", claimName, time.Since(began).Round(time.Millisecond))
}

// childrenOf lists processes whose parent is pid; an unreaped zombie counts.
func childrenOf(t *testing.T, pid int) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to inspect: %v", err)
	}
	var kids []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// Fields after the parenthesised command: state ppid ...
		s := string(stat)
		rest := s[strings.LastIndexByte(s, ')')+2:]
		f := strings.Fields(rest)
		if len(f) >= 2 && f[1] == strconv.Itoa(pid) {
			kids = append(kids, fmt.Sprintf("%s %s", e.Name(), s[strings.IndexByte(s, '(')+1:strings.LastIndexByte(s, ')')]))
		}
	}
	return kids
}

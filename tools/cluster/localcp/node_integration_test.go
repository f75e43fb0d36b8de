package localcp

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/draconform/draconform/drivers/deploy"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localnode"
	"github.com/draconform/draconform/tools/cluster/localproc"
)

// TestNodeRunsAPodAndLeavesNothing starts a real node beside a real control
// plane: containerd, runc, CNI and the v1.37.2 kubelet, with the test
// driver. A pod runs and its log is read through the API server (which
// dials the kubelet with its own certificate); then the stop must leave no
// process, mount, cgroup, bridge, log link or directory behind.
func TestNodeRunsAPodAndLeavesNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	kernelBefore, alone := localnode.HostKernelSettings(), len(localnode.Folders()) == 0
	began := time.Now()
	p, c := startTestNode(ctx, t, "node")
	t.Logf("control plane and node Ready with the test driver in %s", time.Since(began).Round(time.Millisecond))
	lc := c.(*Cluster)
	n := lc.node
	for _, comp := range []cluster.Component{cluster.Kubelet, cluster.Containerd} {
		if tail, err := c.TailLog(ctx, comp, 5); err != nil || !strings.Contains(tail, n.LogPath(comp)) {
			t.Errorf("TailLog(%s) = %q, %v; want the node's log", comp, tail, err)
		}
	}

	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, n.Name(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, taint := range node.Spec.Taints {
		t.Errorf("node keeps taint %s: pods would not schedule there", taint.Key)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default"},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](1),
			Containers: []corev1.Container{{Name: "main", Image: deploy.DefaultImage, ImagePullPolicy: corev1.PullNever,
				Command: []string{"/draconform-driver", "print-env"}, Env: []corev1.EnvVar{{Name: "DRACONFORM_HELLO", Value: "world"}}}},
		},
	}
	began = time.Now()
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var log string
	deadline := time.Now().Add(2 * time.Minute)
	for {
		raw, err := cs.CoreV1().Pods("default").GetLogs("hello", &corev1.PodLogOptions{}).Do(ctx).Raw()
		if err == nil && strings.Contains(string(raw), "DRACONFORM_HELLO=world") {
			log = string(raw)
			break
		}
		if time.Now().After(deadline) {
			got, _ := cs.CoreV1().Pods("default").Get(ctx, "hello", metav1.GetOptions{})
			t.Fatalf("the pod's log never showed DRACONFORM_HELLO=world (last: %v, %q); pod status %+v; kubelet log:\n%s",
				err, raw, got.Status, localproc.LogTail(n.LogPath(cluster.Kubelet), 40))
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("pod running and its log read through the API in %s: %q", time.Since(began).Round(time.Millisecond), strings.TrimSpace(log))

	// The same look must see the running node, or an empty list after the
	// stop would prove nothing.
	running := strings.Join(n.Leftovers(), "; ")
	for _, want := range []string{"process", "shim process", "mounts", "cgroups", "network interface " + n.Bridge(), "CNI cache", "directory"} {
		if !strings.Contains(running, want) {
			t.Errorf("the leftover check does not see the running node's %s: %s", want, running)
		}
	}
	if err := p.Stop(ctx, c); err != nil {
		t.Fatal(err)
	}
	if left := n.Leftovers(); len(left) > 0 {
		t.Errorf("after Stop the node left: %s", strings.Join(left, "; "))
	}
	if links := localnode.RemoveLogLinks(n.Dir()); len(links) > 0 {
		t.Errorf("after Stop the node left log links: %v", links)
	}
	checkKernelSettings(t, kernelBefore, alone)
}

// checkKernelSettings compares the host's kernel settings with before,
// where the comparison means something: no other node ran when the test's
// started (before is the host's own) or runs now (the last node puts
// them back).
func checkKernelSettings(t *testing.T, before map[string]string, alone bool) {
	t.Helper()
	if others := localnode.Folders(); !alone || len(others) > 0 {
		t.Logf("kernel settings not compared: other nodes ran beside this test's (%v)", others)
		return
	}
	after := localnode.HostKernelSettings()
	for name, v := range before {
		if after[name] != v {
			t.Errorf("kernel setting %s is %s after the node, %s before it", name, after[name], v)
		}
	}
	if localnode.HostKernelRecorded() {
		t.Errorf("the record of the kernel settings is left behind")
	}
}

func TestAddNodeWithoutNodeOptionsIsUnsupported(t *testing.T) {
	p := New(Options{})
	err := p.AddNode(context.Background(), &Cluster{})
	if !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("got %v, want ErrUnsupported", err)
	}
}

// TestOrphanedNodeIsRemoved is what a killed run leaves: the kubelet and
// containerd die with it, their shims, containers, mounts, cgroups and
// bridge stay. draconform cleanup --nodes finds the node by its state
// directory and removes all of it.
func TestOrphanedNodeIsRemoved(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	kernelBefore, alone := localnode.HostKernelSettings(), len(localnode.Folders()) == 0
	_, c := startTestNode(ctx, t, "orphan")
	n := c.(*Cluster).node
	if ids, _ := localnode.OrphanNodes(); slices.Contains(ids, n.ID()) {
		t.Fatalf("a running node counts as orphaned: %v", ids)
	}
	// As SIGKILL to draconform would: its children die, and its lock on
	// the node's folder goes with it; nothing else. The folder is made
	// older than the grace a node gets to start, as after a kill a
	// while ago.
	n.Kill()
	if ids, _ := localnode.OrphanNodes(); slices.Contains(ids, n.ID()) {
		t.Fatalf("a node whose draconform holds its lock counts as orphaned: %v", ids)
	}
	n.Release()
	if ids, _ := localnode.OrphanNodes(); slices.Contains(ids, n.ID()) {
		t.Fatalf("a node folder younger than %s counts as orphaned: %v", localnode.OrphanGrace, ids)
	}
	before := time.Now().Add(-2 * localnode.OrphanGrace)
	if err := os.Chtimes(n.Dir(), before, before); err != nil {
		t.Fatal(err)
	}
	left := strings.Join(n.Leftovers(), "; ")
	for _, want := range []string{"shim process", "mounts", "cgroups", "directory"} {
		if !strings.Contains(left, want) {
			t.Errorf("a killed node should leave its %s behind for this test to mean anything: %s", want, left)
		}
	}
	ids, err := localnode.OrphanNodes()
	if err != nil || !slices.Contains(ids, n.ID()) {
		t.Fatalf("localnode.OrphanNodes() = %v, %v; want it to list %s", ids, err, n.ID())
	}
	if err := localnode.RemoveOrphanNode(n.ID()); err != nil {
		t.Fatal(err)
	}
	if left := n.Leftovers(); len(left) > 0 {
		t.Errorf("after RemoveOrphanNode the node left: %s", strings.Join(left, "; "))
	}
	checkKernelSettings(t, kernelBefore, alone)
	lc := c.(*Cluster)
	lc.mu.Lock()
	lc.node = nil // removed already; the provider stops the control plane
	lc.mu.Unlock()
}

// startTestNode starts a control plane for cell with a node beside it, or
// skips where this machine cannot run one. The provider stops with the test.
func startTestNode(ctx context.Context, t *testing.T, cell string) (*Provider, cluster.Cluster) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a control plane and a kubelet node")
	}
	if err := localnode.HostSupport(); err != nil {
		t.Skip(err)
	}
	binDir := ensureTestBinaries(t)
	out := t.TempDir()
	p := New(Options{BinDir: binDir, OutDir: out, Version: testVersion, Log: testLog{t},
		Node: &localnode.BuildOptions{KubeletBinDir: binDir, OutDir: out}})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	// A cold build of the container runtime takes minutes; it is not what
	// the tests time, so it does not count against ctx.
	if _, err := p.NodeBinaries(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, err := p.Start(ctx, cell, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AddNode(ctx, c); err != nil {
		t.Fatal(err)
	}
	return p, c
}

package probe

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

func fakeCluster() *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		resourceSlices: "ResourceSliceList", nodesGVR: "NodeList"})
}

func node(name, ready string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": name},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready}}}}}
}

func slice(name, driver, node string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"driver": driver, "nodeName": node}}}
}

// A driver that publishes a moment after the wait begins is waited for.
func TestWaitForDriverWaitsForItsFirstSlice(t *testing.T) {
	dyn := fakeCluster()
	ctx := context.Background()
	if _, err := dyn.Resource(nodesGVR).Create(ctx, node("worker", "True"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, _ = dyn.Resource(resourceSlices).Create(ctx, slice("s1", "gpu.example.com", "worker"), metav1.CreateOptions{})
	}()
	nodes, err := waitForDriver(ctx, dyn, "gpu.example.com", 5*time.Second, 10*time.Millisecond)
	if err != nil || len(nodes) != 1 || nodes[0] != "worker" {
		t.Fatalf("waitForDriver = %v, %v; want [worker]", nodes, err)
	}
}

// A slice on a node that is not Ready, or gone, is no device to run on:
// the wait ends empty when its time is up.
func TestWaitForDriverEndsEmptyWithoutAReadyNode(t *testing.T) {
	dyn := fakeCluster()
	ctx := context.Background()
	if _, err := dyn.Resource(nodesGVR).Create(ctx, node("down", "False"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*unstructured.Unstructured{slice("s1", "gpu.example.com", "down"), slice("s2", "gpu.example.com", "gone")} {
		if _, err := dyn.Resource(resourceSlices).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	nodes, err := waitForDriver(ctx, dyn, "gpu.example.com", 60*time.Millisecond, 10*time.Millisecond)
	if err != nil || len(nodes) != 0 {
		t.Fatalf("waitForDriver = %v, %v; want none", nodes, err)
	}
	if time.Since(began) < 60*time.Millisecond {
		t.Errorf("gave up after %s, before its time", time.Since(began))
	}
}

package steps

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clientfeatures "k8s.io/client-go/features"
)

// The fake tracker never ends a watch-list's initial events (stepstest
// says more); these tests list and watch as older clients do.
var listWatchOnce sync.Once

type noWatchList struct{ clientfeatures.Gates }

func (g noWatchList) Enabled(key clientfeatures.Feature) bool {
	return key != clientfeatures.WatchListClient && g.Gates.Enabled(key)
}

func fakePods(t *testing.T, objects ...runtime.Object) *dynamicfake.FakeDynamicClient {
	t.Helper()
	listWatchOnce.Do(func() { clientfeatures.ReplaceFeatureGates(noWatchList{clientfeatures.FeatureGates()}) })
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{podGVR: "PodList"}, objects...)
}

func pending(*unstructured.Unstructured) error { return notYet{"still pending"} }

// A hold on an object that is not there has nothing to keep: it must not
// pass for one that stayed.
func TestHoldOnAMissingObject(t *testing.T) {
	ri := fakePods(t).Resource(podGVR).Namespace("ns")
	err := holdFor(context.Background(), ri, "p1", 200*time.Millisecond, pending)
	if err == nil || !strings.Contains(err.Error(), "p1 does not exist, so it cannot stay as it must for 200ms") {
		t.Fatalf("a hold on a missing pod must fail saying so; got %v", err)
	}
}

func TestHoldOnAnObjectThatStays(t *testing.T) {
	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p1", "namespace": "ns"}}}
	ri := fakePods(t, pod).Resource(podGVR).Namespace("ns")
	if err := holdFor(context.Background(), ri, "p1", 200*time.Millisecond, pending); err != nil {
		t.Fatalf("a pod that stays as it must holds; got %v", err)
	}
}

package testdriver

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

// The shape of drivers/deploy/testdriver.yaml, which is written
// concurrently elsewhere: cluster-scoped and namespaced objects, one
// without a namespace that belongs in "default", and empty documents.
const driverManifests = `# The draconform test driver.
---
apiVersion: v1
kind: Namespace
metadata:
  name: draconform-driver
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: draconform-driver
  namespace: draconform-driver
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: draconform-driver
rules:
- apiGroups: [resource.k8s.io]
  resources: [resourceslices]
  verbs: [get, list, watch, create, update, delete]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: draconform-driver-devices
  namespace: draconform-driver
data:
  devices.yaml: |
    devices: []
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: draconform-driver
  namespace: draconform-driver
spec:
  selector:
    matchLabels: {app: draconform-driver}
  template:
    metadata:
      labels: {app: draconform-driver}
    spec:
      containers:
      - name: driver
        image: draconform.dev/testdriver:dev
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: lonely
data: {}
`

var (
	nsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	saGVR  = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	crGVR  = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
	cmGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	dsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	listOf = map[schema.GroupVersionResource]string{
		nsGVR: "NamespaceList", saGVR: "ServiceAccountList", crGVR: "ClusterRoleList", cmGVR: "ConfigMapList", dsGVR: "DaemonSetList",
	}
)

func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot)
	m.Add(schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, meta.RESTScopeNamespace)
	return m
}

func TestApplyManifestsCreatesThenUpdates(t *testing.T) {
	ctx := context.Background()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listOf)
	applied, err := ApplyManifests(ctx, dyn, testMapper(), []byte(driverManifests))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Namespace draconform-driver",
		"ServiceAccount draconform-driver/draconform-driver",
		"ClusterRole draconform-driver",
		"ConfigMap draconform-driver/draconform-driver-devices",
		"DaemonSet draconform-driver/draconform-driver",
		"ConfigMap default/lonely",
	}
	if diff := cmp.Diff(want, applied); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	ds, err := dyn.Resource(dsGVR).Namespace("draconform-driver").Get(ctx, "draconform-driver", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the DaemonSet was not created: %v", err)
	}
	if img := ds.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"]; img != "draconform.dev/testdriver:dev" {
		t.Errorf("image %v", img)
	}
	// A second run (a kept cluster) updates instead of failing on
	// AlreadyExists, and takes the file's new content.
	changed := strings.Replace(driverManifests, "devices: []", "devices: [gpu-0]", 1)
	if _, err := ApplyManifests(ctx, dyn, testMapper(), []byte(changed)); err != nil {
		t.Fatalf("second apply: %v", err)
	}
	cm, err := dyn.Resource(cmGVR).Namespace("draconform-driver").Get(ctx, "draconform-driver-devices", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cm.Object["data"].(map[string]any)["devices.yaml"]; got != "devices: [gpu-0]\n" {
		t.Errorf("ConfigMap not updated: %q", got)
	}
}

func TestApplyManifestsErrors(t *testing.T) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listOf)
	tests := []struct {
		name, data, want string
	}{
		{"unknown kind", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n", "Widget w"},
		{"no name", "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "document 1 has no apiVersion, kind or metadata.name"},
		{"not yaml", "apiVersion: [\n", "document 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ApplyManifests(context.Background(), dyn, testMapper(), []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

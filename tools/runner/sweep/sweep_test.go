package sweep

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/draconform/draconform/steps"
)

var now = time.Date(2026, 12, 5, 23, 0, 0, 0, time.UTC)

func object(apiVersion, kind, namespace, name, run string, created time.Time) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetLabels(map[string]string{steps.RunLabel: run})
	u.SetCreationTimestamp(metav1.NewTime(created))
	return u
}

func lease(name, run string, renewed time.Time) *unstructured.Unstructured {
	u := object("coordination.k8s.io/v1", "Lease", "kube-node-lease", name, run, renewed.Add(-time.Hour))
	_ = unstructured.SetNestedField(u.Object, renewed.Format(metav1.RFC3339Micro), "spec", "renewTime")
	_ = unstructured.SetNestedField(u.Object, int64(40), "spec", "leaseDurationSeconds")
	return u
}

func client(objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	kinds := map[schema.GroupVersionResource]string{
		{Version: "v1", Resource: "namespaces"}:                               "NamespaceList",
		{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"}:  "DeviceClassList",
		{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}: "ResourceSliceList",
		{Version: "v1", Resource: "nodes"}:                                    "NodeList",
		{Version: "v1", Resource: "pods"}:                                     "PodList",
		leases:                                                                "LeaseList",
	}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds, objs...)
}

// Three runs: one killed an hour ago (its Lease stale), one going (its
// Lease renewed seconds ago), one without Nodes that created its last
// namespace a minute ago (it may be going).
func world() []runtime.Object {
	old := now.Add(-time.Hour)
	return []runtime.Object{
		object("v1", "Namespace", "", "dc-dead-1", "dead", old),
		object("v1", "Node", "", "dc-dead-1-n0", "dead", old),
		lease("dc-dead-1-n0", "dead", old.Add(10*time.Minute)),
		object("resource.k8s.io/v1", "DeviceClass", "", "dc-dead-1-gpu", "dead", old),
		object("v1", "Namespace", "", "dc-live-1", "live", old),
		object("v1", "Node", "", "dc-live-1-n0", "live", old),
		lease("dc-live-1-n0", "live", now.Add(-8*time.Second)),
		object("v1", "Namespace", "", "dc-fresh-1", "fresh", now.Add(-time.Minute)),
		object("v1", "Namespace", "", "dc-stale-1", "stale", now.Add(-2*Recent)),
	}
}

func TestSweepLeavesRunsThatMayStillBeGoing(t *testing.T) {
	dyn := client(world()...)
	var out bytes.Buffer
	sum, err := Sweep(context.Background(), dyn, Options{Now: func() time.Time { return now }}, &out)
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"deleted namespaces/dc-dead-1 (run dead)",
		"deleted nodes/dc-dead-1-n0 (run dead)",
		"deleted deviceclasses/dc-dead-1-gpu (run dead)",
		"deleted namespaces/dc-stale-1 (run stale)",
		"leaving run live (2 objects): it may still be going: its Nodes' Leases were renewed 8s ago; --run live deletes them anyway",
		"leaving run fresh (1 objects): it may still be going: it has no Node to show it is alive, and its newest object was created 1m0s ago",
		"7 objects carry the label " + steps.RunLabel,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the sweep did not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "dc-live-1 ") || strings.Contains(text, "deleted namespaces/dc-fresh-1") {
		t.Errorf("a run that may be going lost objects:\n%s", text)
	}
	if strings.Join(sum.Left, ",") != "fresh,live" {
		t.Errorf("left %v, want fresh and live", sum.Left)
	}
}

func TestSweepOfANamedRunTakesItAliveOrNot(t *testing.T) {
	dyn := client(world()...)
	var out bytes.Buffer
	if _, err := Sweep(context.Background(), dyn, Options{Run: "live", Now: func() time.Time { return now }}, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "deleted namespaces/dc-live-1 (run live)") || !strings.Contains(text, "deleted nodes/dc-live-1-n0 (run live)") {
		t.Errorf("the named run was not deleted:\n%s", text)
	}
	if strings.Contains(text, "dead") || strings.Contains(text, "leaving") {
		t.Errorf("another run was touched or the named one left:\n%s", text)
	}
}

func TestDryRunDeletesNothing(t *testing.T) {
	dyn := client(world()...)
	var out bytes.Buffer
	if _, err := Sweep(context.Background(), dyn, Options{DryRun: true, Now: func() time.Time { return now }}, &out); err != nil {
		t.Fatal(err)
	}
	for _, a := range dyn.Actions() {
		if a.GetVerb() == "delete" || a.GetVerb() == "delete-collection" {
			t.Errorf("a dry run deleted: %v", a)
		}
	}
	if !strings.Contains(out.String(), "would delete namespaces/dc-dead-1 (run dead)") {
		t.Errorf("the dry run did not list the dead run:\n%s", out.String())
	}
}

// The run label alone is anyone's to set: an object that carries it but
// not the run's name prefix survives a sweep, even of that named run, and
// the sweep says why it left it.
func TestSweepLeavesAForeignObjectCarryingTheLabel(t *testing.T) {
	old := now.Add(-time.Hour)
	foreign := []*unstructured.Unstructured{
		object("v1", "Namespace", "", "production", "dead", old),
		object("resource.k8s.io/v1", "DeviceClass", "", "gpu.nvidia.com", "dead", old),
		object("v1", "Node", "", "worker-1", "dead", old),
		object("v1", "Namespace", "", "dc-deadbeef-1", "dead", old), // another run's prefix
	}
	objs := world()
	for _, f := range foreign {
		objs = append(objs, f)
	}
	for _, opts := range []Options{{}, {Run: "dead"}} {
		dyn := client(objs...)
		var out bytes.Buffer
		opts.Now = func() time.Time { return now }
		if _, err := Sweep(context.Background(), dyn, opts, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "deleted namespaces/dc-dead-1 (run dead)") {
			t.Errorf("the run's own namespace was not deleted:\n%s", out.String())
		}
		for _, f := range foreign {
			gvr := map[string]schema.GroupVersionResource{
				"Namespace":   {Version: "v1", Resource: "namespaces"},
				"DeviceClass": {Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"},
				"Node":        {Version: "v1", Resource: "nodes"},
			}[f.GetKind()]
			if _, err := dyn.Resource(gvr).Get(context.Background(), f.GetName(), metav1.GetOptions{}); err != nil {
				t.Errorf("run %q: %s %s was deleted: %v\n%s", opts.Run, f.GetKind(), f.GetName(), err, out.String())
			}
			if want := "leaving " + gvr.Resource + "/" + f.GetName() + ": it carries"; !strings.Contains(out.String(), want) {
				t.Errorf("the sweep did not say %q:\n%s", want, out.String())
			}
		}
	}
}

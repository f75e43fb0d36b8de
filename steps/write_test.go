package steps_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

func write(t *testing.T, verb, src string) steps.Step {
	t.Helper()
	st, err := steps.Build(decode[spec.Step](t, verb+": "+src))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestWriteCreate(t *testing.T) {
	f := stepstest.New(t)
	mustPass(t, run(t, f, write(t, "create", "{fixture: pod-extended, name: p1}")))
	c, err := f.Env.Lookup("pod/p1")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Get(c).GetLabels()[steps.RunLabel]; got != stepstest.RunID {
		t.Errorf("stored pod has run label %q", got)
	}
	// Created again: the leftover hint.
	mustFail(t, run(t, f, write(t, "create", "{fixture: pod-extended, name: p1}")), "create pod/p1", "already exists", "draconform cleanup")
	// Cleanup deletes what the case wrote, and tolerates what is gone.
	mustPass(t, f.Env.RunCleanup(context.Background()))
	if _, err := f.Dyn.Resource(c.GVR).Namespace(stepstest.Namespace).Get(context.Background(), "p1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the pod outlived the case: %v", err)
	}
}

// rejectClasses makes the fake API server refuse every DeviceClass.
func rejectClasses(f *stepstest.Fake) {
	f.Dyn.PrependReactor("create", "deviceclasses", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewBadRequest("spec.extendedResourceCapacityRequests: Forbidden: requires extendedResourceName")
	})
}

func TestWriteOutcomes(t *testing.T) {
	const class = "{fixture: class-plain, name: gpu"
	tests := []struct {
		name     string
		use      string
		reject   bool
		warnings []string
		fails    []string
	}{
		{name: "accepted", use: class + "}"},
		{name: "accepted, rejection expected", use: class + ", expect: {rejected: requires extendedResourceName}}",
			fails: []string{"create deviceclass/gpu", "was accepted, but it must be rejected"}},
		{name: "rejected as expected", reject: true, use: class + ", expect: {rejected: requires extendedResourceName}}"},
		{name: "rejection message with a variable", reject: true, use: class + `, expect: {rejected: "${prefix}"}}`,
			fails: []string{`does not contain "` + stepstest.Prefix + `"`}},
		{name: "rejected, acceptance expected", reject: true, use: class + "}", fails: []string{"must be accepted, but the API server rejected it"}},
		{name: "warned as expected", warnings: []string{`unknown field "spec.x"`}, use: class + ", expect: {warning: unknown field}}"},
		{name: "not warned", use: class + ", expect: {warning: unknown field}}", fails: []string{"no warning containing", "warnings: none"}},
		{name: "warned, quiet expected", warnings: []string{"dropped"}, use: class + ", expect: {noWarning: true}}",
			fails: []string{"must not warn", `"dropped"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := stepstest.New(t)
			if tt.reject {
				rejectClasses(f)
			}
			f.Warn(tt.warnings...)
			err := run(t, f, write(t, "create", tt.use))
			check(t, err, tt.fails)
			_, lerr := f.Env.Lookup("deviceclass/gpu")
			// Later steps see the object only when it was written as expected.
			if want := !tt.reject && tt.fails == nil; want != (lerr == nil) {
				t.Errorf("remembered %v, want %v", lerr == nil, want)
			}
		})
	}
}

func TestWriteNode(t *testing.T) {
	f := stepstest.New(t)
	// Admission taints every new Node not-ready.
	f.Dyn.PrependReactor("create", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured)
		taints, _, _ := unstructured.NestedSlice(u.Object, "spec", "taints")
		taints = append(taints, map[string]any{"key": corev1.TaintNodeNotReady, "effect": "NoSchedule"})
		_ = unstructured.SetNestedSlice(u.Object, taints, "spec", "taints")
		return false, nil, nil
	})
	mustPass(t, run(t, f, write(t, "create", "{fixture: node, name: n1}")))
	node, err := f.Kube.CoreV1().Nodes().Get(context.Background(), node1, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(node.Spec.Taints) != 1 || node.Spec.Taints[0].Key != steps.TaintKey {
		t.Errorf("taints %v, want only the run's", node.Spec.Taints)
	}
	c, _ := f.Env.Lookup("node/n1")
	if conds, _, _ := unstructured.NestedSlice(f.Get(c).Object, "status", "conditions"); len(conds) != 1 {
		t.Errorf("the node's status was not written: conditions %v", conds)
	}
	// A kubelet's heartbeat: without it the node lifecycle controller of a
	// real cluster taints the node unreachable about a minute in.
	leases := f.Kube.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	lease, err := leases.Get(context.Background(), node1, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("no Lease keeps the node alive: %v", err)
	}
	if lease.Spec.RenewTime == nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != node1 ||
		len(lease.OwnerReferences) != 1 || lease.OwnerReferences[0].Name != node1 || lease.Labels[steps.RunLabel] == "" {
		t.Errorf("Lease %+v: want renewed, held by and owned by %s, with the run's label", lease, node1)
	}
	if err := f.Env.RunCleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := leases.Get(context.Background(), node1, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the node's Lease outlived the case: %v", err)
	}
}

func TestWriteUpdateAndDelete(t *testing.T) {
	f := stepstest.New(t)
	mustFail(t, run(t, f, write(t, "update", "{fixture: class-plain, name: gpu}")), "deviceclass/gpu was not created by this case")
	mustPass(t, run(t, f, write(t, "create", "{fixture: class-plain, name: gpu}")))
	mustPass(t, run(t, f, write(t, "update", `{fixture: class-plain, name: gpu, patch: {metadata: {labels: {v: "2"}}}}`)))
	c, _ := f.Env.Lookup("deviceclass/gpu")
	if got := f.Get(c).GetLabels()["v"]; got != "2" {
		t.Errorf("the update was not stored: label v=%q", got)
	}
	mustPass(t, run(t, f, write(t, "delete", "deviceclass/gpu")))
	gvr := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"}
	if _, err := f.Dyn.Resource(gvr).Get(context.Background(), c.Object.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("not deleted: %v", err)
	}
	mustPass(t, run(t, f, write(t, "delete", "deviceclass/gpu")))
	mustFail(t, run(t, f, write(t, "delete", "pod/p9")), "pod/p9 was not created by this case")
}

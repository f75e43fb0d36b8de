package runner

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// keepCase runs a case's start (its namespace, a pod in it and a
// DeviceClass) on a fake cluster, then its clean-up with
// --keep-on-failure, the case failed or not; it returns the fake and what
// the case recorded as kept.
func keepCase(t *testing.T, failed, discarded bool) (*stepstest.Fake, string) {
	t.Helper()
	f := stepstest.New(t)
	ctx := context.Background()
	f.AddYAML("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: " + stepstest.Namespace + "}\n")
	if err := createNamespace(ctx, f.Env, discarded); err != nil {
		t.Fatal(err)
	}
	for _, use := range []spec.ObjectUse{{Fixture: "pod-extended", Name: "p1"}, {Fixture: "class-plain", Name: "gpu"}} {
		w := &steps.Write{Verb: "create", Spec: &spec.Write{ObjectUse: use}}
		if err := w.Run(ctx, f.Env); err != nil {
			t.Fatal(err)
		}
	}
	// The claim the scheduler made for p1's extended resource.
	f.AddYAML("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: p1-extended-resources-x7k2q, namespace: " + stepstest.Namespace + "}\nspec: {}\n")
	r := newCaseResult(false)
	if failed {
		r.fail("step 2 at s.yaml:9, pod p1 is scheduled: no")
	}
	st := &cellState{Kubectl: "kubectl --kubeconfig /k/config", Discarded: discarded}
	if err := cleanUp(ctx, true, f.Env, r, st); err != nil {
		t.Fatal(err)
	}
	var kept string
	for _, e := range r.entries {
		if e.name == report.EntryKept {
			kept = e.value.(string)
		}
	}
	return f, kept
}

func exists(t *testing.T, f *stepstest.Fake, ref spec.Ref) bool {
	t.Helper()
	c, err := f.Env.Lookup(ref)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resource(f.Dyn).Get(context.Background(), c.Object.GetName(), metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// With --keep-on-failure a failed case's namespace and the objects in it
// stay, and the case says how to reach them; its cluster-scoped objects
// go, for the cases after it. A case that passed leaves nothing.
func TestKeepOnFailureKeepsTheFailedCasesNamespaceOnly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		failed bool
	}{{"a failed case", true}, {"a case that passed", false}} {
		t.Run(tc.name, func(t *testing.T) {
			f, kept := keepCase(t, tc.failed, false)
			_, err := f.Kube.CoreV1().Namespaces().Get(context.Background(), stepstest.Namespace, metav1.GetOptions{})
			if nsKept := err == nil; nsKept != tc.failed {
				t.Errorf("namespace kept: %t, want %t (%v)", nsKept, tc.failed, err)
			}
			if got := exists(t, f, "pod/p1"); got != tc.failed {
				t.Errorf("pod kept: %t, want %t", got, tc.failed)
			}
			if exists(t, f, "deviceclass/gpu") {
				t.Error("the case's DeviceClass, cluster-scoped, was kept for the cases after it")
			}
			if !tc.failed {
				if kept != "" {
					t.Errorf("a case that passed says it kept: %s", kept)
				}
				return
			}
			for _, want := range []string{"kept (--keep-on-failure): namespace " + stepstest.Namespace + " with Pod/",
				"see it: kubectl --kubeconfig /k/config -n " + stepstest.Namespace + " get all,resourceclaims",
				"not kept (cluster-scoped, removed for the cases after it): DeviceClass/",
				"ResourceClaim/p1-extended-resources-x7k2q (not the case's: the scheduler's or a controller's)"} {
				if !strings.Contains(kept, want) {
					t.Errorf("the kept text lacks %q:\n%s", want, kept)
				}
			}
		})
	}
}

// On a cluster the run discards, the kept text says the namespace goes with
// the run, and offers no kubectl command that would reach nothing.
func TestKeepOnFailureOnADiscardedClusterSaysSo(t *testing.T) {
	_, kept := keepCase(t, true, true)
	if !strings.Contains(kept, "stops when the run ends") || strings.Contains(kept, "kubectl") {
		t.Errorf("kept text on a discarded cluster:\n%s", kept)
	}
}

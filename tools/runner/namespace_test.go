package runner

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/cluster"
)

// nsCluster is a cluster that the run keeps or discards.
type nsCluster struct{ discarded bool }

func (nsCluster) Name() string             { return "fake" }
func (nsCluster) RESTConfig() *rest.Config { return &rest.Config{} }
func (nsCluster) Gates() cluster.GateState { return nil }
func (nsCluster) TailLog(context.Context, cluster.Component, int) (string, error) {
	return "", cluster.ErrNoLog
}

// A case's clean-up deletes its pods everywhere, and its namespace on a
// cluster that outlives the run; on one the run discards, the namespace goes
// with it, sparing the namespace controller's sweep of every resource type.
func TestCaseNamespaceIsDeletedUnlessTheRunDiscardsTheCluster(t *testing.T) {
	for _, tt := range []struct {
		name      string
		discarded bool
	}{{"a cluster that outlives the run", false}, {"a cluster the run discards", true}} {
		t.Run(tt.name, func(t *testing.T) {
			f := stepstest.New(t)
			f.Env.Cluster = nsCluster{discarded: tt.discarded}
			ctx := context.Background()
			f.AddYAML("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: " + stepstest.Namespace + "}\n")
			if err := createNamespace(ctx, f.Env, tt.discarded); err != nil {
				t.Fatal(err)
			}
			if err := f.Env.RunCleanup(ctx); err != nil {
				t.Fatal(err)
			}
			// The fake's tracker ignores delete-collection, so what is
			// checked is what the clean-up asked of the API server.
			var podsDeleted, nsDeleted bool
			for _, a := range f.Kube.Actions() {
				switch {
				case a.Matches("delete-collection", "pods") && a.GetNamespace() == stepstest.Namespace:
					podsDeleted = true
				case a.Matches("delete", "namespaces"):
					nsDeleted = true
				}
			}
			if !podsDeleted {
				t.Error("the clean-up did not delete the case's pods")
			}
			if nsDeleted == tt.discarded {
				t.Errorf("namespace deleted: %t, want %t", nsDeleted, !tt.discarded)
			}
			_, err := f.Kube.CoreV1().Namespaces().Get(ctx, stepstest.Namespace, metav1.GetOptions{})
			if kept := err == nil; kept != tt.discarded {
				t.Errorf("namespace kept: %t, want %t (get: %v)", kept, tt.discarded, err)
			}
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		})
	}
}

// A case's namespace enforces Pod Security "restricted": draconform rbac's
// admission policy refuses the runner any other namespace, and on a
// cluster without that policy the label still keeps a privileged pod out.
func TestCaseNamespaceEnforcesRestricted(t *testing.T) {
	f := stepstest.New(t)
	ctx := context.Background()
	f.AddYAML("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: " + stepstest.Namespace + "}\n")
	if err := createNamespace(ctx, f.Env, false); err != nil {
		t.Fatal(err)
	}
	ns, err := f.Kube.CoreV1().Namespaces().Get(ctx, stepstest.Namespace, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ns.Labels["pod-security.kubernetes.io/enforce"]; got != "restricted" {
		t.Errorf("the case's namespace enforces %q, want restricted", got)
	}
}

package sweep

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/cluster/localcp/localcptest"
)

// On a real API server (the embedded v1.37.2): a killed run's Node, whose
// Lease was last renewed ten minutes ago, and its namespace go; a run
// whose Node renewed its Lease just now keeps both.
func TestSweepOnARealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := localcptest.Start(ctx, t, "defaults")
	kube := kubernetes.NewForConfigOrDie(c.RESTConfig())
	for run, renewed := range map[string]time.Time{"killed": time.Now().Add(-10 * time.Minute), "going": time.Now()} {
		makeRun(ctx, t, kube, run, renewed)
	}
	var out bytes.Buffer
	if _, err := Sweep(ctx, dynamic.NewForConfigOrDie(c.RESTConfig()), Options{}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	if _, err := kube.CoreV1().Nodes().Get(ctx, "dc-killed-1-n0", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the killed run's Node is still there: %v", err)
	}
	if ns, err := kube.CoreV1().Namespaces().Get(ctx, "dc-killed-1", metav1.GetOptions{}); err == nil && ns.DeletionTimestamp == nil {
		t.Error("the killed run's namespace is not being deleted")
	}
	if _, err := kube.CoreV1().Nodes().Get(ctx, "dc-going-1-n0", metav1.GetOptions{}); err != nil {
		t.Errorf("the going run's Node: %v", err)
	}
	if ns, err := kube.CoreV1().Namespaces().Get(ctx, "dc-going-1", metav1.GetOptions{}); err != nil || ns.DeletionTimestamp != nil {
		t.Errorf("the going run's namespace was deleted: %v", err)
	}
	if !strings.Contains(out.String(), "leaving run going (2 objects)") {
		t.Errorf("the sweep did not say it leaves the going run:\n%s", out.String())
	}
}

// makeRun creates, as a run does, a case namespace and a kubelet-less Node
// whose Lease was last renewed at renewed.
func makeRun(ctx context.Context, t *testing.T, kube kubernetes.Interface, run string, renewed time.Time) {
	t.Helper()
	labels := map[string]string{steps.RunLabel: run}
	name := "dc-" + run + "-1"
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	node, err := kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name + "-n0", Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: node.Name, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(node.Name), LeaseDurationSeconds: ptr.To(int32(40)),
			RenewTime: &metav1.MicroTime{Time: renewed}},
	}
	if _, err := kube.CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

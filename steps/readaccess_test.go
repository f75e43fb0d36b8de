package steps_test

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
)

// On a cluster where the runner reads pods only where it binds
// draconform's read role (draconform rbac's), it binds it in the case's
// namespace, to itself, and waits until the API server's authorizer lets
// it read there; an administrator reads already, and binds nothing.
func TestGrantReadsBindsTheReadRoleInItsNamespace(t *testing.T) {
	const runner = "system:serviceaccount:sonobuoy:draconform"
	f := stepstest.New(t)
	runnerIs(f, runner)
	lists, sinceBound := 0, 0
	f.Kube.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		lists++
		_, err := f.Kube.Tracker().Get(schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, a.GetNamespace(), steps.ReadRoleName)
		if err == nil {
			sinceBound++
		}
		// The authorizer sees a new binding a moment later.
		if err != nil || sinceBound < 2 {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("not bound"))
		}
		return false, nil, nil
	})
	if err := f.Env.GrantReads(context.Background()); err != nil {
		t.Fatal(err)
	}
	rb, err := f.Kube.RbacV1().RoleBindings(stepstest.Namespace).Get(context.Background(), steps.ReadRoleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rb.RoleRef.Name != steps.ReadRoleName || len(rb.Subjects) != 1 || rb.Subjects[0].Kind != "User" || rb.Subjects[0].Name != runner || rb.Labels[steps.RunLabel] == "" {
		t.Errorf("the binding %+v does not grant the read role to the runner alone, as the run's", rb)
	}
	if sinceBound < 2 || lists < 3 {
		t.Errorf("%d lists, %d after the binding: GrantReads returned before the runner could read", lists, sinceBound)
	}
	g := stepstest.New(t)
	if err := g.Env.GrantReads(context.Background()); err != nil {
		t.Fatal(err)
	}
	if list, _ := g.Kube.RbacV1().RoleBindings(stepstest.Namespace).List(context.Background(), metav1.ListOptions{}); len(list.Items) != 0 {
		t.Errorf("bound %d RoleBindings where reads were allowed", len(list.Items))
	}
}

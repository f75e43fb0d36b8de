package steps_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

// On a cluster that grants log reads only where the runner binds
// draconform's log role (draconform rbac's), a refused read makes the
// runner bind it in the case's namespace, to itself, and read again.
func TestExpectRunningBindsLogReadsInItsNamespace(t *testing.T) {
	const runner = "system:serviceaccount:ci:draconform"
	f := stepstest.New(t)
	runnerIs(f, runner)
	name := f.SeedYAML("p1", podYAML("p1", node1, runningStatus)).Object.GetName()
	reads := 0
	f.Env.Clients.Logs = func(ctx context.Context, ns, pod, container string) (string, error) {
		reads++
		rb, err := f.Kube.RbacV1().RoleBindings(ns).Get(ctx, steps.LogRoleName, metav1.GetOptions{})
		if err != nil {
			return "", apierrors.NewForbidden(schema.GroupResource{Resource: "pods/log"}, pod, fmt.Errorf("no binding in %s", ns))
		}
		if rb.RoleRef.Name != steps.LogRoleName || len(rb.Subjects) != 1 || rb.Subjects[0].Kind != "User" || rb.Subjects[0].Name != runner {
			return "", apierrors.NewForbidden(schema.GroupResource{Resource: "pods/log"}, pod, fmt.Errorf("binding %+v grants the runner nothing", rb))
		}
		if ns != stepstest.Namespace || pod != name {
			return "", fmt.Errorf("log of %s/%s read", ns, pod)
		}
		return printed, nil
	}
	mustPass(t, run(t, f, &steps.ExpectRunning{Spec: &spec.ExpectRunning{Pod: "p1", Env: wantShare, Within: spec.Duration(short + 2*time.Second)}}))
	if reads < 2 {
		t.Errorf("the log was read %d times: the refused read was not followed by one after the binding", reads)
	}
	rb, err := f.Kube.RbacV1().RoleBindings(stepstest.Namespace).Get(context.Background(), steps.LogRoleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rb.Labels[steps.RunLabel] == "" {
		t.Errorf("the binding is not labelled as the run's: %v", rb.Labels)
	}
	// An administrator's read is not refused: nothing is bound.
	g := stepstest.New(t)
	gname := g.SeedYAML("p1", podYAML("p1", node1, runningStatus)).Object.GetName()
	l := &logs{text: map[string]string{gname + "/main": printed}}
	g.Env.Clients.Logs = l.read
	mustPass(t, run(t, g, &steps.ExpectRunning{Spec: &spec.ExpectRunning{Pod: "p1", Env: wantShare, Within: spec.Duration(short)}}))
	if list, _ := g.Kube.RbacV1().RoleBindings(stepstest.Namespace).List(context.Background(), metav1.ListOptions{}); len(list.Items) != 0 {
		t.Errorf("bound %d RoleBindings where reads were allowed", len(list.Items))
	}
}

// runnerIs makes the fake API server say, asked who the runner is, that
// it is user (a SelfSubjectReview).
func runnerIs(f *stepstest.Fake, user string) {
	f.Kube.PrependReactor("create", "selfsubjectreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: authenticationv1.UserInfo{Username: user}}}, nil
	})
}

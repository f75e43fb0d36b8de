package steps

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// ReadRoleName is the ClusterRole draconform rbac ships that grants
// reading a namespace's pods, events and service accounts; it is
// access.ReadRoleName, repeated as RunLabel is. The runner binds it in its
// case's namespace, to itself, as soon as it makes the namespace.
const ReadRoleName = "draconform-runner-reads"

// GrantReads lets the runner read the case namespace's pods, events and
// service accounts before any step does: the role draconform rbac prints
// reads none of them cluster-wide, so that the pod specs of the cluster's
// own workloads stay unread. Where the runner already reads them (an
// administrator's credentials), nothing is bound. The API server's
// authorizer learns of a new binding through an informer, so the read is
// tried again until it passes.
func (env *Env) GrantReads(ctx context.Context) error {
	pods := env.Clients.Kube.CoreV1().Pods(env.Namespace)
	_, err := pods.List(ctx, metav1.ListOptions{Limit: 1})
	if !apierrors.IsForbidden(err) {
		if err != nil {
			return fmt.Errorf("listing the pods of %s: %w", env.Namespace, err)
		}
		return nil
	}
	if err := env.bindToSelf(ctx, ReadRoleName, "to read its pods, their events and its ServiceAccount"); err != nil {
		return err
	}
	poll := func(ctx context.Context) (bool, error) {
		_, err = pods.List(ctx, metav1.ListOptions{Limit: 1})
		return !apierrors.IsForbidden(err), nil
	}
	if werr := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, poll); werr != nil {
		return fmt.Errorf("bound %s in %s, the runner still may not read its pods after 30 s: %w", ReadRoleName, env.Namespace, err)
	}
	return err
}

// bindToSelf binds the ClusterRole role to the runner in the case's
// namespace. A User subject of the runner's own name matches it whatever
// it is (a ServiceAccount's name is system:serviceaccount:NS:NAME), and is
// the one subject the admission policy lets it bind.
func (env *Env) bindToSelf(ctx context.Context, role, why string) error {
	kube := env.Clients.Kube
	who, err := kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("asking who the runner is, %s: %w", why, err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role, Namespace: env.Namespace, Labels: map[string]string{RunLabel: env.RunID, CaseLabel: env.CaseHash}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: who.Status.UserInfo.Username}},
	}
	if _, err := kube.RbacV1().RoleBindings(env.Namespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("binding %s in %s, %s (draconform rbac grants it): %w", role, env.Namespace, why, err)
	}
	return nil
}

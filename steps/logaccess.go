package steps

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LogRoleName is the ClusterRole draconform rbac ships that grants reading
// pods' logs; it is access.LogRoleName, repeated as RunLabel is. On a
// cluster the run did not start, the runner may read logs only where it
// binds this role: in its case's namespace, to itself.
const LogRoleName = "draconform-runner-logs"

// grantLogs binds LogRoleName to the runner in the case's namespace, once,
// after a log read was refused: the role draconform rbac prints reads no
// log cluster-wide, so that the cluster's own pods' (kube-system's) stay
// unread. An administrator's credentials never get here: their read is
// not refused.
func (env *Env) grantLogs(ctx context.Context) error {
	env.mu.Lock()
	done := env.logsGranted
	env.logsGranted = true
	env.mu.Unlock()
	if done {
		return nil
	}
	kube := env.Clients.Kube
	// A User subject of the runner's own name matches it whatever it is
	// (a ServiceAccount's name is system:serviceaccount:NS:NAME), and is
	// the one subject the admission policy lets it bind.
	who, err := kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("asking who the runner is, to let it read its pods' logs: %w", err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: LogRoleName, Namespace: env.Namespace, Labels: map[string]string{RunLabel: env.RunID, CaseLabel: env.CaseHash}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: LogRoleName},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: who.Status.UserInfo.Username}},
	}
	if _, err := kube.RbacV1().RoleBindings(env.Namespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("binding %s in %s, to read its pods' logs (draconform rbac grants it): %w", LogRoleName, env.Namespace, err)
	}
	return nil
}

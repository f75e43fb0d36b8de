package access

import (
	"context"
	"maps"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Install names and labels the objects of a manifest that is installed
// beside others: the Sonobuoy plugin's account's are named for it, so that
// they replace no other runner's, and labelled as Sonobuoy's own, so that
// sonobuoy delete removes its ClusterRole and binding.
type Install struct {
	// Name names the ClusterRole and its binding, the Lease Role and its
	// binding, and the admission policy and its binding; "" is RoleName.
	Name string
	// Labels go on each of them.
	Labels map[string]string
}

// PluginInstall is the install for the Sonobuoy plugin's service account
// ns/account, named for it (draconform-sonobuoy-<ns>-<account>), so that
// the plugin's preflight finds it by the account it runs as.
func PluginInstall(ns, account string, labels map[string]string) Install {
	return Install{Name: "draconform-sonobuoy-" + ns + "-" + account, Labels: labels}
}

// installOf is the install whose objects the preflight reads back for
// user: the Sonobuoy plugin's, where user is a service account whose
// install's ClusterRoleBinding exists and binds it; else draconform rbac's.
// The binding is read with the user's own credentials, which the plugin's
// role lets get it by name.
func installOf(ctx context.Context, kube kubernetes.Interface, user string) Install {
	ns, account, ok := strings.Cut(strings.TrimPrefix(user, "system:serviceaccount:"), ":")
	if !ok || !strings.HasPrefix(user, "system:serviceaccount:") {
		return Install{}
	}
	in := PluginInstall(ns, account, nil)
	crb, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, in.name(), metav1.GetOptions{})
	if err != nil {
		return Install{}
	}
	if _, binds := subjectOf(crb.Subjects, user, nil); !binds {
		return Install{}
	}
	return in
}

func (in Install) name() string {
	if in.Name == "" {
		return RoleName
	}
	return in.Name
}

// rbacMeta is the type and metadata of an RBAC object of the install.
func (in Install) rbacMeta(kind, ns string) (metav1.TypeMeta, metav1.ObjectMeta) {
	labels := map[string]string{"app.kubernetes.io/name": "draconform"}
	maps.Copy(labels, in.Labels)
	return metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: kind},
		metav1.ObjectMeta{Name: in.name(), Namespace: ns, Labels: labels, Annotations: versionAnnotation()}
}

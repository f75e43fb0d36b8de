package access

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

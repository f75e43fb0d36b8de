package sonobuoy

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/draconform/draconform/tools/certify/access"
)

// Install is what sonobuoy-plugin --rbac prints, as objects: the plugin's
// service account in Sonobuoy's namespace ns, then draconform rbac's
// objects for it, named for the account and labelled for sonobuoy delete
// (access.PluginInstall).
func Install(ns, account string) ([]any, error) {
	sub, err := access.ParseSubject("serviceaccount:" + ns + "/" + account)
	if err != nil {
		return nil, err
	}
	in := access.PluginInstall(ns, account, DeleteLabels(ns))
	return append([]any{ServiceAccount(ns, account)}, in.Objects(sub)...), nil
}

// ServiceAccount is the plugin's account, labelled as the install is.
func ServiceAccount(ns, account string) *corev1.ServiceAccount {
	labels := map[string]string{"app.kubernetes.io/name": "draconform"}
	maps.Copy(labels, DeleteLabels(ns))
	return &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: account, Namespace: ns, Labels: labels},
	}
}

// PSALabel is the label by which Sonobuoy's manifest lets its namespace
// run privileged pods (vmware-tanzu/sonobuoy, pkg/client/gen.go,
// generateNS, its default level): sonobuoy run finds the namespace there
// already and does not label it, so the namespace Apply makes carries it.
const PSALabel = "pod-security.kubernetes.io/enforce"

// Namespace is Sonobuoy's namespace as Sonobuoy's own manifest makes it.
func Namespace(ns string) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{PSALabel: "privileged"}},
	}
}

package usecase

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/certify/sonobuoy"
)

// SonobuoyRequest asks for the Sonobuoy plugin definition that runs
// draconform (Image, or for a release, Version's image) in the cluster as
// its own service account, run as --as-cell AsCell and with FakeNodes, or
// (RBAC) for that account with what draconform rbac grants and confines
// it to.
type SonobuoyRequest struct {
	Image, Version, AsCell, Namespace, Account string
	FakeNodes, RBAC                            bool
}

// Sonobuoy's defaults: its namespace and the plugin's service account.
const (
	SonobuoyNamespace      = sonobuoy.DefaultNamespace
	SonobuoyServiceAccount = sonobuoy.DefaultServiceAccount
)

// SonobuoyPlugin is the definition, or the manifest, as YAML.
func SonobuoyPlugin(r SonobuoyRequest) ([]byte, error) {
	if r.RBAC {
		data, err := sonobuoyRBAC(r.Namespace, r.Account)
		if err != nil {
			return nil, failed(2, err)
		}
		return data, nil
	}
	image, err := sonobuoy.PinImage(r.Image, r.Version)
	if err != nil {
		return nil, failed(2, err)
	}
	args := []string{"run", "--provider", "kubeconfig", "--sonobuoy", "--out", "/tmp/draconform"}
	if r.AsCell != "" {
		args = append(args, "--as-cell", r.AsCell)
	}
	if r.FakeNodes {
		args = append(args, "--allow-fake-nodes")
	}
	return sonobuoy.Definition(sonobuoy.Plugin{Image: image, Args: args, ServiceAccount: r.Account})
}

// sonobuoyRBAC is the plugin's service account and draconform rbac's
// manifest for it. The account lives in Sonobuoy's namespace, which
// Sonobuoy's own manifest creates: apply both in one stream, Sonobuoy's
// first. The manifest's objects are named for the account, and labelled so
// that sonobuoy delete removes the ClusterRole and its binding; the header
// says how to remove the rest, which it leaves.
func sonobuoyRBAC(namespace, account string) ([]byte, error) {
	sub, err := access.ParseSubject("serviceaccount:" + namespace + "/" + account)
	if err != nil {
		return nil, err
	}
	in := access.PluginInstall(namespace, account, sonobuoy.DeleteLabels(namespace))
	manifest, err := in.Manifest(sub)
	if err != nil {
		return nil, err
	}
	sel := sonobuoy.DeleteSelector(namespace)
	var b strings.Builder
	fmt.Fprintf(&b, "# The service account the draconform Sonobuoy plugin runs as (draconform sonobuoy-plugin --rbac), and what draconform rbac grants it.\n")
	fmt.Fprintf(&b, "# sonobuoy delete --namespace %s removes the namespace, with the account, and the ClusterRole and ClusterRoleBinding below (it deletes those labelled %s).\n", namespace, sel)
	fmt.Fprintf(&b, "# It leaves the Role and RoleBinding in %s and the admission policy; after it, remove them with\n", access.LeaseNamespace)
	fmt.Fprintf(&b, "#   kubectl delete -n %s role,rolebinding -l %s\n", access.LeaseNamespace, sel)
	fmt.Fprintf(&b, "#   kubectl delete validatingadmissionpolicybinding,validatingadmissionpolicy -l %s\n", sel)
	fmt.Fprintf(&b, "# The ClusterRoles %s and %s grant nothing until the runner binds them in its namespaces, which go with the run, and may serve another draconform rbac: they stay.\n", access.LogRoleName, access.ReadRoleName)
	labels := ""
	for _, k := range slices.Sorted(maps.Keys(in.Labels)) {
		labels += fmt.Sprintf("    %s: %s\n", k, in.Labels[k])
	}
	fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: %s\n  namespace: %s\n  labels:\n    app.kubernetes.io/name: draconform\n%s", account, namespace, labels)
	return append([]byte(b.String()), manifest...), nil
}

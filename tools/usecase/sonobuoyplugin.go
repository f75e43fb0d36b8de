package usecase

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/certify/sonobuoy"
	"github.com/draconform/draconform/tools/lang/loader"
)

// SonobuoyRequest asks for the Sonobuoy plugin definition that runs
// draconform (Image, or for a release, Version's image) in the cluster as
// its own service account, run as --as-cell AsCell and with FakeNodes, or
// (RBAC) for that account with what draconform rbac grants and confines
// it to; with Apply, that applied to the cluster of Kubeconfig (see
// SonobuoyApply). With Claim, the plugin certifies it as certify does, of
// the driver the Profile file describes and the Product file names (host
// files, which the definition carries); else it runs the suites.
type SonobuoyRequest struct {
	Image, Version, AsCell, Namespace, Account string
	Claim, Profile, Product                    string
	FakeNodes, AllowUnconfined, RBAC, Apply    bool
	Kubeconfig                                 KubeconfigOptions
}

// Sonobuoy's defaults: its namespace and the plugin's service account.
const (
	SonobuoyNamespace      = sonobuoy.DefaultNamespace
	SonobuoyServiceAccount = sonobuoy.DefaultServiceAccount
)

// The names of the host's files in the plugin's config-map, and so in its
// container (sonobuoy.ConfigDir).
const (
	pluginProfileFile = "driver-profile.yaml"
	pluginProductFile = "product.yaml"
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
	args, files, err := r.pluginArgs()
	if err != nil {
		return nil, failed(2, err)
	}
	return sonobuoy.Definition(sonobuoy.Plugin{Image: image, Args: args, ServiceAccount: r.Account, Files: files})
}

// pluginArgs are the container's draconform arguments, and the files
// they read from the plugin's config-map. The host's files are checked
// here as certify checks them, so that a wrong one is said now, not in a
// pod's log.
func (r SonobuoyRequest) pluginArgs() ([]string, map[string]string, error) {
	args := []string{"run"}
	if r.Claim != "" {
		if r.Product == "" {
			return nil, nil, fmt.Errorf("--claim needs --product FILE, as certify does: the Product file the bundle certifies")
		}
		if _, err := bundle.LoadProduct(r.Product, r.Profile); err != nil {
			return nil, nil, err
		}
		args = []string{"certify", "--claim", r.Claim}
	} else if r.Product != "" {
		return nil, nil, fmt.Errorf("--product names what a bundle certifies: give --claim too, or leave it out to run the suites")
	}
	args = append(args, "--provider", "kubeconfig", "--sonobuoy", "--out", "/tmp/draconform")
	files := map[string]string{}
	for _, f := range []struct{ flag, path, name string }{{"--driver-profile", r.Profile, pluginProfileFile}, {"--product", r.Product, pluginProductFile}} {
		if f.path == "" {
			continue
		}
		data, err := os.ReadFile(f.path)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.flag, err)
		}
		files[f.name] = string(data)
		args = append(args, f.flag, sonobuoy.ConfigPath(f.name))
	}
	if r.Profile != "" && r.Claim == "" {
		if _, err := loader.LoadProfile(r.Profile); err != nil {
			return nil, nil, err
		}
	}
	if r.AsCell != "" {
		args = append(args, "--as-cell", r.AsCell)
	}
	if r.FakeNodes {
		args = append(args, "--allow-fake-nodes")
	}
	if r.AllowUnconfined {
		args = append(args, "--allow-unconfined")
	}
	return args, files, nil
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

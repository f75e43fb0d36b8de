package usecase

import (
	"fmt"

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
// first.
func sonobuoyRBAC(namespace, account string) ([]byte, error) {
	sub, err := access.ParseSubject("serviceaccount:" + namespace + "/" + account)
	if err != nil {
		return nil, err
	}
	manifest, err := access.Manifest(sub)
	if err != nil {
		return nil, err
	}
	sa := fmt.Sprintf("# The service account the draconform Sonobuoy plugin runs as (draconform sonobuoy-plugin --rbac).\n"+
		"---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: %s\n  namespace: %s\n  labels:\n    app.kubernetes.io/name: draconform\n", account, namespace)
	return append([]byte(sa), manifest...), nil
}

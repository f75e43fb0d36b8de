package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/certify/sonobuoy"
)

// sonobuoyPluginCmd prints the Sonobuoy plugin definition that runs
// draconform in the cluster as its own service account, or (--rbac) that
// account with what draconform rbac grants and confines it to:
// `{ sonobuoy gen --plugin <(draconform sonobuoy-plugin --image ...);
// draconform sonobuoy-plugin --rbac; } | kubectl apply -f -`.
func sonobuoyPluginCmd(fs *pflag.FlagSet) action {
	image := fs.String("image", "draconform.dev/draconform:dev", "the draconform image the plugin runs (draconform image writes one)")
	asCell := fs.String("as-cell", "", "the gate cell the cluster runs, as --as-cell of run (e.g. capacity-on)")
	fakeNodes := fs.Bool("allow-fake-nodes", false, "as --allow-fake-nodes of run: consent to Node objects with no kubelet, which the cluster's tolerate-everything DaemonSets follow (draconform preflight lists them)")
	namespace := fs.String("namespace", sonobuoy.DefaultNamespace, "Sonobuoy's namespace (its --namespace), where the plugin's pod and service account are")
	account := fs.String("service-account", sonobuoy.DefaultServiceAccount, "the plugin's service account: the pod runs as it, not as Sonobuoy's (cluster-admin)")
	rbac := fs.Bool("rbac", false, "print instead the plugin's service account, the role a run needs and the admission policy that confines it (draconform rbac for that account), to apply with Sonobuoy's manifest")
	return func(_ context.Context, _ []string, s Streams) int {
		if *rbac {
			data, err := sonobuoyRBAC(*namespace, *account)
			if err != nil {
				fmt.Fprintln(s.Err, "draconform sonobuoy-plugin:", err)
				return 2
			}
			_, _ = s.Out.Write(data)
			return 0
		}
		args := []string{"run", "--provider", "kubeconfig", "--sonobuoy", "--out", "/tmp/draconform"}
		if *asCell != "" {
			args = append(args, "--as-cell", *asCell)
		}
		if *fakeNodes {
			args = append(args, "--allow-fake-nodes")
		}
		data, err := sonobuoy.Definition(sonobuoy.Plugin{Image: *image, Args: args, ServiceAccount: *account})
		if err != nil {
			fmt.Fprintln(s.Err, "draconform sonobuoy-plugin:", err)
			return 1
		}
		fmt.Fprint(s.Out, string(data))
		return 0
	}
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

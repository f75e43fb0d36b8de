package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/certify/sonobuoy"
)

// sonobuoyPluginCmd prints the Sonobuoy plugin definition that runs
// draconform in the cluster: `sonobuoy run --plugin <(draconform
// sonobuoy-plugin --image ...)`.
func sonobuoyPluginCmd(fs *pflag.FlagSet) action {
	image := fs.String("image", "draconform.dev/draconform:dev", "the draconform image the plugin runs (draconform image writes one)")
	asCell := fs.String("as-cell", "", "the gate cell the cluster runs, as --as-cell of run (e.g. capacity-on)")
	fakeNodes := fs.Bool("allow-fake-nodes", false, "as --allow-fake-nodes of run: consent to Node objects with no kubelet, which the cluster's tolerate-everything DaemonSets follow (draconform preflight lists them)")
	return func(_ context.Context, _ []string, s Streams) int {
		args := []string{"run", "--provider", "kubeconfig", "--sonobuoy", "--out", "/tmp/draconform"}
		if *asCell != "" {
			args = append(args, "--as-cell", *asCell)
		}
		if *fakeNodes {
			args = append(args, "--allow-fake-nodes")
		}
		data, err := sonobuoy.Definition(sonobuoy.Plugin{Image: *image, Args: args})
		if err != nil {
			fmt.Fprintln(s.Err, "draconform sonobuoy-plugin:", err)
			return 1
		}
		fmt.Fprint(s.Out, string(data))
		return 0
	}
}

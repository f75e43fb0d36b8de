package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// upCmd starts one cell's embedded control plane and keeps it until
// interrupted (usecase.Up). It starts embedded control planes only, so it
// registers their flags and not a visited cluster's or kind's.
func upCmd(fs *pflag.FlagSet) action {
	var r usecase.UpRequest
	registerSpecs(fs, &r.Specs)
	fs.StringVar(&r.Cell, "cell", "defaults", "the cell whose gates the control plane runs with")
	registerProvider(fs, &r.Providers)
	registerEmbedded(fs, &r.Providers)
	oneProvider(fs, "local", "the implementation whose control plane to start: local (the embedded v1.37.2 binaries), prototype (with the KEP-6406 prototype kube-apiserver and kube-scheduler), prototype-static, or a mutant (see draconform mutation --list)")
	fs.StringVar(&r.Out, "out", "", "directory for logs (default: _output/up-<id>); the kubeconfig, which holds the admin token, goes to a private folder up prints")
	fs.BoolVar(&r.Node, "node", false, "also start a kubelet node with containerd and the test driver (root, Linux)")
	return func(ctx context.Context, args []string, s Streams) int {
		r.Ready = func(up usecase.UpResult) {
			fmt.Fprintf(s.Out, "control plane %s is up; logs in %s\n  export KUBECONFIG=%s\nCtrl-C stops it.\n", up.Name, up.LogDir, up.Kubeconfig)
		}
		return exit(s, "draconform up:", usecase.Up(ctx, r, s.uc()))
	}
}

// exampleDriverCmd puts the Kubernetes SIG's example DRA driver on the
// kubelet node of a running `draconform up --node` until interrupted
// (usecase.ExampleDriver).
func exampleDriverCmd(fs *pflag.FlagSet) action {
	var r usecase.ExampleDriverRequest
	fs.StringVar(&r.Kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "the kubeconfig draconform up wrote (default: $KUBECONFIG)")
	fs.StringVar(&r.Node, "node", "", "the embedded node to install on, where several talk to the API server (default: the only one)")
	fs.StringVar(&r.Out, "out", "", "directory for the chart's values, the rendered chart and the image archive (default: _output/example-driver-<id>)")
	fs.BoolVar(&r.BuildOnly, "build-only", false, "install nothing: build the plugin, write its image archive into --out, and print the image, the archive and the chart's folder (for kind load image-archive and helm install on a cluster of your own)")
	return func(ctx context.Context, args []string, s Streams) int {
		if r.BuildOnly {
			return exit(s, "draconform example-driver:", usecase.ExampleDriverFiles(ctx, r, s.uc()))
		}
		return exit(s, "draconform example-driver:", usecase.ExampleDriver(ctx, r, s.uc()))
	}
}

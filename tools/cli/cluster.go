package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

func cleanupCmd(fs *pflag.FlagSet) action {
	var r usecase.CleanupRequest
	fs.StringVar(&r.Kubeconfig.Path, "kubeconfig", "", "cluster to clean (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&r.Kubeconfig.Context, "context", "", "kubeconfig context")
	fs.StringVar(&r.Run, "run", "", "delete this run's objects, even while it runs (default: every run's that has ended: its Nodes' Leases expired, or it has no Node and created nothing for 10 min)")
	fs.BoolVar(&r.DryRun, "dry-run", false, "list what would be deleted, delete nothing")
	fs.BoolVar(&r.Nodes, "nodes", false, "instead: remove from this machine what a killed run left: its embedded nodes (processes, mounts, cgroups, bridges, state), its control planes' private folders (PKI, admin token, etcd data) and its runs' and kind clusters' private folders (kubeconfigs)")
	return func(ctx context.Context, args []string, s Streams) int {
		return exit(s, "draconform cleanup:", usecase.Cleanup(ctx, r, s.uc()))
	}
}

// preflightCmd checks a cluster the way a run does before its first case,
// and says what a run would create there.
func preflightCmd(fs *pflag.FlagSet) action {
	var r usecase.PreflightRequest
	fs.StringVar(&r.Kubeconfig.Path, "kubeconfig", "", "kubeconfig (default: $KUBECONFIG, then ~/.kube/config, then a pod's service account)")
	fs.StringVar(&r.Kubeconfig.Context, "context", "", "kubeconfig context")
	fs.BoolVar(&r.Kubeconfig.AllowFakeNodes, "allow-fake-nodes", false, "say what a run with --allow-fake-nodes would set off")
	fs.BoolVar(&r.AllowUnconfined, "allow-unconfined", false, "as a run with --allow-unconfined: succeed where the writes are not confined by draconform's current admission policy")
	return func(ctx context.Context, _ []string, s Streams) int {
		return exit(s, "draconform preflight:", usecase.Preflight(ctx, r, s.Out))
	}
}

// rbacCmd prints the manifest that lets a user run draconform and nothing
// more.
func rbacCmd(fs *pflag.FlagSet) action {
	subject := fs.String("subject", "serviceaccount:draconform/draconform", "who runs draconform: serviceaccount:NAMESPACE/NAME, user:NAME or group:NAME")
	return func(_ context.Context, _ []string, s Streams) int {
		data, err := usecase.RBAC(*subject)
		if err != nil {
			return exit(s, "draconform rbac:", err)
		}
		_, _ = s.Out.Write(data)
		return 0
	}
}

// sonobuoyPluginCmd prints the Sonobuoy plugin definition that runs
// draconform in the cluster (with --claim, certify), or (--rbac) its
// service account and what confines it: `{ sonobuoy gen --plugin
// <(draconform sonobuoy-plugin --image ...); draconform sonobuoy-plugin
// --rbac; } | kubectl apply -f -`; with --apply, applies that itself.
func sonobuoyPluginCmd(fs *pflag.FlagSet) action {
	var r usecase.SonobuoyRequest
	fs.StringVar(&r.Image, "image", "", "the draconform image the plugin runs, by digest (repository@sha256:..., run as the node holds it) or by tag (pulled each time); default: a release's own image, draconform.dev/draconform:<version>. A build that is no release must name its image by digest")
	fs.StringVar(&r.AsCell, "as-cell", "", "the gate cell the cluster runs, as --as-cell of run (e.g. capacity-on)")
	fs.BoolVar(&r.FakeNodes, "allow-fake-nodes", false, "as --allow-fake-nodes of run: consent to Node objects with no kubelet, which the cluster's tolerate-everything DaemonSets follow (draconform preflight lists them)")
	fs.StringVar(&r.Claim, "claim", "", "certify this claim in the cluster, as draconform certify --claim does: Sonobuoy's results then hold the bundle (plugins/draconform/results/global/bundle); without it the plugin runs the suites")
	fs.StringVar(&r.Profile, "driver-profile", "", "as --driver-profile of certify: a DriverProfile file of this machine, carried into the pod in the plugin's config-map")
	fs.StringVar(&r.Product, "product", "", "with --claim, required: the Product file (kind: Product) of this machine, carried into the pod in the plugin's config-map")
	fs.BoolVar(&r.AllowUnconfined, "allow-unconfined", false, "as --allow-unconfined of certify: write where draconform's admission policy does not confine the plugin's account (the bundle records it). Not needed where sonobuoy-plugin --rbac was applied")
	fs.StringVar(&r.Namespace, "namespace", usecase.SonobuoyNamespace, "Sonobuoy's namespace (its --namespace), where the plugin's pod and service account are")
	fs.StringVar(&r.Account, "service-account", usecase.SonobuoyServiceAccount, "the plugin's service account: the pod runs as it, not as Sonobuoy's (cluster-admin)")
	fs.BoolVar(&r.RBAC, "rbac", false, "print instead the plugin's service account, the role a run needs and the admission policy that confines it (draconform rbac for that account), to apply with Sonobuoy's manifest")
	fs.BoolVar(&r.Apply, "apply", false, "with --rbac: apply it yourself, with the credentials of --kubeconfig (an administrator's), saying first what it will do: make Sonobuoy's namespace (then run sonobuoy with --skip-preflight=existingnamespace) and have it own what sonobuoy delete leaves, so that nothing is left after sonobuoy delete")
	fs.StringVar(&r.Kubeconfig.Path, "kubeconfig", "", "with --apply: the cluster (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&r.Kubeconfig.Context, "context", "", "with --apply: kubeconfig context")
	return func(ctx context.Context, _ []string, s Streams) int {
		if r.Apply {
			return exit(s, "draconform sonobuoy-plugin:", usecase.SonobuoyApply(ctx, r, s.Out))
		}
		r.Version = buildVersion().Version
		data, err := usecase.SonobuoyPlugin(r)
		if err != nil {
			return exit(s, "draconform sonobuoy-plugin:", err)
		}
		fmt.Fprint(s.Out, string(data))
		return 0
	}
}

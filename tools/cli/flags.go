package cli

import (
	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// Each verb registers the flags it reads, no more: the provider flags come
// in groups (the --provider flag itself, the embedded control plane's, a
// visited cluster's, kind's), so that a verb that starts only embedded
// control planes does not list a kubeconfig's or kind's.

func registerFilter(fs *pflag.FlagSet, f *usecase.Filter) {
	fs.StringVar(&f.Cells, "cells", "", "comma-separated gate cells to run (default: every cell a case names)")
	fs.StringVar(&f.Suites, "suite", "", "comma-separated suites to run (default: all)")
}

// registerProviders registers every provider flag: what run and certify
// read.
func registerProviders(fs *pflag.FlagSet, f *usecase.Providers) {
	registerProvider(fs, f)
	registerVisited(fs, f)
	registerEmbedded(fs, f)
	registerKind(fs, f)
}

func registerProvider(fs *pflag.FlagSet, f *usecase.Providers) {
	fs.StringVar(&f.Provider, "provider", usecase.DefaultProviders, usecase.ProviderUsage())
}

// registerVisited registers the flags of --provider kubeconfig.
func registerVisited(fs *pflag.FlagSet, f *usecase.Providers) {
	fs.StringVar(&f.Kubeconfig.Path, "kubeconfig", "", "kubeconfig for --provider kubeconfig (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&f.Kubeconfig.Context, "context", "", "kubeconfig context for --provider kubeconfig")
	fs.BoolVar(&f.Kubeconfig.AllowFakeNodes, "allow-fake-nodes", false, "with --provider kubeconfig: consent to Node objects with no kubelet, which most cases schedule onto; the cluster's DaemonSets that tolerate every taint put pods on them (draconform preflight lists them). Without it those cases skip")
	fs.BoolVar(&f.AllowUnconfined, "allow-unconfined", false, "with --provider kubeconfig: write to the cluster even where draconform's current admission policy (draconform rbac) does not confine the credentials' writes to the run's own objects; a certify bundle records it. Without it such a run is refused")
	fs.StringVar(&f.Kubeconfig.AsCell, "as-cell", "", "with --provider kubeconfig: the gate cell the cluster was configured as (it runs that cell's cases; others are skipped)")
}

// registerEmbedded registers the flags of the embedded control planes.
func registerEmbedded(fs *pflag.FlagSet, f *usecase.Providers) {
	fs.StringVar(&f.Local.Version, "k8s-version", "v1.37.2", "version of the embedded control plane's binaries (their cache key)")
	fs.StringVar(&f.Local.CacheDir, "cache-dir", "", "where built binaries are kept (default: <repo>/.cache/k8s)")
	fs.StringVar(&f.Local.BinDir, "bin-dir", "", "with --provider local: a directory of binaries to test (kube-apiserver, kube-scheduler, kube-controller-manager, etcd: those it holds replace draconform's build); the run's target is then "+usecase.LocalBinariesTarget+", which has no golden outcomes")
	fs.StringVar(&f.Bins, "bin", "", "with --provider local: comma-separated component=path overrides, e.g. kube-scheduler=/src/k8s/_output/bin/kube-scheduler")
	fs.StringVar(&f.Local.BinEncoding, "bin-encoding", "protobuf", "with --bin-dir/--bin: protobuf (Kubernetes' default) or json, for an implementation that, like draconform's prototype, extends only the JSON encoding")
}

// registerKind registers the flags of --provider kind.
func registerKind(fs *pflag.FlagSet, f *usecase.Providers) {
	fs.StringVar(&f.Kind.Cluster, "kind-cluster", "", "with --provider kind: name of the first cluster (default draconform)")
	fs.StringVar(&f.Kind.Image, "kind-image", "", "with --provider kind: node image (default: kind v0.33.0's)")
	fs.StringVar(&f.Kind.KEPBinDir, "kind-kep-bin-dir", "", "with --provider kind: directory of static linux kube-apiserver and kube-scheduler binaries implementing KEP-6406, run in place of the node image's")
	fs.BoolVar(&f.Kind.Keep, "kind-keep", false, "with --provider kind: keep the clusters after the run")
	fs.BoolVar(&f.Kind.NoDriver, "kind-no-driver", false, "with --provider kind: do not install the test driver (cases that need a kubelet are skipped)")
}

// oneProvider gives --provider the default and help of a command that acts
// on one implementation, where the run's "local,prototype" would only be
// refused.
func oneProvider(fs *pflag.FlagSet, def, usage string) {
	if f := fs.Lookup("provider"); f != nil {
		f.DefValue = def
		_ = f.Value.Set(def)
		f.Usage = usage
	}
}

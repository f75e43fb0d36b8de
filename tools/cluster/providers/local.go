package providers

import (
	"context"
	"fmt"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localcp"
	"github.com/draconform/draconform/tools/cluster/localnode"
)

// buildLocal builds (or finds) the Kubernetes binaries of c.Local.Version,
// or checks the binaries c.Local gives from elsewhere.
func buildLocal(ctx context.Context, c Config) (*Built, error) {
	if c.Local.HasBinaries() {
		return localBinaries(ctx, c)
	}
	bin, err := kubernetesBinaries(ctx, c, c.Local.Version)
	if err != nil {
		return nil, fmt.Errorf("kubernetes binaries: %w", err)
	}
	return built(c, func() (cluster.Provider, error) {
		return localcp.New(localcp.Options{BinDir: bin, ReleasedBinDir: bin, OutDir: c.OutDir, CellDirSuffix: c.Local.cellDirSuffix(), Version: c.Local.Version, Log: c.Log, Node: nodeOptions(c, bin), APIServerExtraFlags: c.Local.APIServerFlags}), nil
	}), nil
}

// kubernetesBinaries builds (or finds, or downloads where
// DRACONFORM_RELEASE_URL allows) the Kubernetes binaries of version.
func kubernetesBinaries(ctx context.Context, c Config, version string) (string, error) {
	release, err := k8sbuild.ReleaseURL()
	if err != nil {
		return "", err
	}
	return k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{Version: version, CacheDir: c.Local.CacheDir, ReleaseURL: release, Log: c.Log})
}

// nodeOptions gives an embedded provider its node: the v1.37.2 kubelet,
// whatever the control plane, since KEP-6406 does not touch the kubelet.
func nodeOptions(c Config, vanillaBinDir string) *localnode.BuildOptions {
	return &localnode.BuildOptions{CacheDir: c.Local.CacheDir, KubeletBinDir: vanillaBinDir, OutDir: c.OutDir, Log: c.Log, Reuse: c.Local.NodeBuilt}
}

// EnsureRuntime builds (or finds) the embedded node's container runtime
// (containerd, runc, the CNI plugins), so that it can build beside the
// Kubernetes binaries rather than after them.
func EnsureRuntime(ctx context.Context, c Config) error {
	root, cacheDir, err := k8sbuild.Dirs("", c.Local.CacheDir)
	if err != nil {
		return err
	}
	if _, err := localnode.EnsureRuntimeBinaries(ctx, root, cacheDir, false, c.Log); err != nil {
		return fmt.Errorf("the node's container runtime: %w", err)
	}
	return nil
}

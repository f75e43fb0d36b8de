package providers

import (
	"context"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kind"
)

// buildKind checks Docker, which kind's clusters run in.
func buildKind(ctx context.Context, c Config) (*Built, error) {
	if err := kind.CheckDocker(ctx, kind.ExecRunner); err != nil {
		return nil, err
	}
	k := c.Kind
	return built(c, func() (cluster.Provider, error) {
		return kind.New(kind.Options{ClusterName: k.Cluster, Image: k.Image, KEPBinDir: k.KEPBinDir,
			KeepCluster: k.Keep, InstallDriver: !k.NoDriver, OutDir: c.OutDir, Log: c.Log})
	}), nil
}

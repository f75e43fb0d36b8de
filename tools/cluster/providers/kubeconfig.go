package providers

import (
	"context"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
)

// buildKubeconfig builds nothing: the cluster is someone else's.
func buildKubeconfig(_ context.Context, c Config) (*Built, error) {
	k := c.Kubeconfig
	return built(c, func() (cluster.Provider, error) {
		return &kubeconfig.Provider{Path: k.Path, Context: k.Context, Cell: k.AsCell, AllowFakeNodes: k.AllowFakeNodes}, nil
	}), nil
}

// Package providers builds a cluster.Provider by name, for the CLI and the
// go test entry point alike.
package providers

import (
	"context"
	"fmt"
	"io"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/localcp"
)

// Config selects and configures a provider.
type Config struct {
	// Name is local (an embedded control plane of real binaries) or
	// kubeconfig (any cluster).
	Name       string
	Kubeconfig string
	Context    string
	// Version and CacheDir locate the local provider's binaries.
	Version  string
	CacheDir string
	OutDir   string
	Log      io.Writer
}

// New returns the provider and a function that stops everything it started.
func New(ctx context.Context, c Config) (cluster.Provider, func(), error) {
	switch c.Name {
	case "kubeconfig":
		return &kubeconfig.Provider{Path: c.Kubeconfig, Context: c.Context}, func() {}, nil
	case "local", "":
		bin, err := localcp.EnsureBinaries(ctx, localcp.BuildOptions{Version: c.Version, CacheDir: c.CacheDir, Log: c.Log})
		if err != nil {
			return nil, nil, fmt.Errorf("kubernetes binaries: %w", err)
		}
		p := localcp.New(localcp.Options{BinDir: bin, OutDir: c.OutDir, Version: c.Version, Log: c.Log})
		return p, func() { _ = p.StopAll(context.Background()) }, nil
	}
	return nil, nil, fmt.Errorf("unknown provider %q (local or kubeconfig)", c.Name)
}

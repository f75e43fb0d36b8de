// Package localcptest starts the embedded v1.37.2 control plane for tests
// that need a real API server rather than a fake client: the runner's
// sweep, the in-cluster kubeconfig provider. It builds (or reuses) the
// binaries make conformance uses, so such tests skip under -short.
package localcptest

import (
	"context"
	"testing"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localcp"
)

// Start starts a control plane in cell with the cell's default gates and
// stops it when t ends. It skips t under -short.
func Start(ctx context.Context, t testing.TB, cell string) cluster.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	bin, err := k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{Version: "v1.37.2"})
	if err != nil {
		t.Fatalf("the v1.37.2 binaries: %v", err)
	}
	p := localcp.New(localcp.Options{BinDir: bin, OutDir: t.TempDir(), Version: "v1.37.2"})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	c, err := p.Start(ctx, cell, nil)
	if err != nil {
		t.Fatalf("starting a control plane in %s: %v", cell, err)
	}
	return c
}

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
	"github.com/draconform/draconform/tools/prototype/build"
)

// Config selects and configures a provider.
type Config struct {
	// Name is local (an embedded control plane of real binaries), prototype
	// (the same with the KEP-6406 prototype kube-apiserver and
	// kube-scheduler, see tools/prototype) or kubeconfig (any cluster).
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
	case "prototype":
		return prototype(ctx, c, false)
	case "prototype-without-cache-fix":
		return prototype(ctx, c, true)
	}
	return nil, nil, fmt.Errorf("unknown provider %q (local, prototype, prototype-without-cache-fix or kubeconfig)", c.Name)
}

// prototype runs the KEP-6406 prototype kube-apiserver and kube-scheduler
// with vanilla etcd and kube-controller-manager. withoutCacheFix leaves out
// the backported extended-resource cache fix, a known-broken variant that
// shows the suite catches a scheduler reading a stale class.
func prototype(ctx context.Context, c Config, withoutCacheFix bool) (cluster.Provider, func(), error) {
	if c.Version != "" && c.Version != build.BaseVersion {
		return nil, nil, fmt.Errorf("the prototype is built from Kubernetes %s, not %s", build.BaseVersion, c.Version)
	}
	vanilla, err := localcp.EnsureBinaries(ctx, localcp.BuildOptions{Version: build.BaseVersion, CacheDir: c.CacheDir, Log: c.Log})
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes binaries: %w", err)
	}
	opts := build.Options{CacheDir: c.CacheDir, VanillaBinDir: vanilla, WithoutCacheFix: withoutCacheFix, Log: c.Log}
	bin, err := build.Ensure(ctx, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("prototype binaries: %w", err)
	}
	// JSON end to end: the prototype does not touch the protobuf code,
	// which would silently drop the new field.
	p := localcp.New(localcp.Options{BinDir: bin, OutDir: c.OutDir, Version: build.Version(opts), Log: c.Log,
		SchedulerContentType: "application/json", StorageMediaType: "application/json"})
	return p, func() { _ = p.StopAll(context.Background()) }, nil
}

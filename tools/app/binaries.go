package app

import (
	"context"
	"fmt"

	"github.com/draconform/draconform/tools/cluster/localcp"
)

func binariesCmd(ctx context.Context, args []string, s Streams) int {
	fs := newFlagSet("binaries", s)
	version := fs.String("k8s-version", "v1.37.2", "version to build (the cache key)")
	cacheDir := fs.String("cache-dir", "", "where built binaries are kept (default: <repo>/.cache/k8s)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	dir, err := localcp.EnsureBinaries(ctx, localcp.BuildOptions{Version: *version, CacheDir: *cacheDir, Log: s.Out})
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return 1
	}
	fmt.Fprintln(s.Out, dir)
	return 0
}

package localcp

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/internal/bintrust"
	"github.com/draconform/draconform/tools/internal/textline"
)

// CheckBinary says whether path is a binary that can run here and what
// version it reports, so that a binary from elsewhere is refused with its
// name before any cell starts; trust checks it before it runs (nil: a
// Checker that remembers nothing).
func CheckBinary(ctx context.Context, trust *bintrust.Checker, path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("binary %s: %w", path, err)
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("binary %s is not an executable file", path)
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd, err := trust.Command(ctx, path, "--version")
	if err != nil {
		return "", err
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("binary %s does not run here (%v): %s", path, err, textline.First(string(out)))
	}
	return textline.First(string(out)), nil
}

// binaryVersion is CheckBinary's version, asked once per path.
func (p *Provider) binaryVersion(ctx context.Context, path string) string {
	p.mu.Lock()
	v, ok := p.versionCache[path]
	p.mu.Unlock()
	if ok {
		return v
	}
	v, err := CheckBinary(ctx, p.trust, path)
	if err != nil {
		v = "unknown: " + err.Error()
	}
	p.mu.Lock()
	p.versionCache[path] = v
	p.mu.Unlock()
	return v
}

// Binaries implements cluster.BinaryLister.
func (c *Cluster) Binaries() []cluster.Binary {
	return append([]cluster.Binary(nil), c.bins...)
}

// listBinaries names the binary and version of every component of a cell.
func (p *Provider) listBinaries(ctx context.Context, released map[cluster.Component]bool) []cluster.Binary {
	var out []cluster.Binary
	for _, comp := range append([]cluster.Component{Etcd}, cluster.Components...) {
		path := p.opts.binary(comp, released)
		out = append(out, cluster.Binary{Component: comp, Path: path, Version: p.binaryVersion(ctx, path)})
	}
	return out
}

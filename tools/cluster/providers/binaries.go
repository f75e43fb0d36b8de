package providers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localcp"
)

// LocalBinariesTarget names the target of a local run on binaries
// draconform did not build; the golden table has no outcomes of it.
const LocalBinariesTarget = "local-bin"

// localBinaries runs the embedded control plane on binaries from elsewhere
// (a contributor's branch, a vendor's patched scheduler): each is checked
// before any cell starts, and what it does not replace runs draconform's
// build of c.Local.Version, which also serves as the released binaries of
// version-skew cells and as the node's kubelet.
func localBinaries(ctx context.Context, c Config) (*Built, error) {
	bins, err := chooseBinaries(c.Local.BinDir, c.Local.Bins)
	if err != nil {
		return nil, err
	}
	versions := map[string]string{}
	for _, comp := range sortedComponents(bins) {
		v, err := localcp.CheckBinary(ctx, nil, bins[comp])
		if err != nil {
			return nil, fmt.Errorf("--bin-dir/--bin: %s: %w", comp, err)
		}
		versions[bins[comp]] = v
		if c.Log != nil {
			fmt.Fprintf(c.Log, "%s: %s is %s (%s)\n", LocalBinariesTarget, comp, bins[comp], v)
		}
	}
	contentType, storage := "", ""
	switch c.Local.BinEncoding {
	case "", "protobuf":
	case "json":
		contentType, storage = "application/json", "application/json"
	default:
		return nil, fmt.Errorf("--bin-encoding %q: want protobuf or json", c.Local.BinEncoding)
	}
	released, err := kubernetesBinaries(ctx, c, c.Local.Version)
	if err != nil {
		return nil, fmt.Errorf("kubernetes binaries: %w", err)
	}
	return built(c, func() (cluster.Provider, error) {
		return localcp.New(localcp.Options{BinDir: released, Binaries: bins, Versions: versions, ReleasedBinDir: released, OutDir: c.OutDir, CellDirSuffix: c.Local.cellDirSuffix(),
			Version: "bin", SchedulerContentType: contentType, StorageMediaType: storage, Log: c.Log, Node: nodeOptions(c, released), APIServerExtraFlags: c.Local.APIServerFlags}), nil
	}), nil
}

// chooseBinaries picks each component's binary: a --bin path, else one of
// that name in dir. It refuses a name that is no component, and a choice
// that replaces nothing.
func chooseBinaries(dir string, named map[string]string) (map[cluster.Component]string, error) {
	all := append([]cluster.Component{localcp.Etcd}, cluster.Components...)
	known := map[string]bool{}
	for _, comp := range all {
		known[string(comp)] = true
	}
	out := map[cluster.Component]string{}
	for name, path := range named {
		if !known[name] {
			return nil, fmt.Errorf("--bin %s=%s: %q is not a control-plane component (%s)", name, path, name, joinAll(all))
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("--bin %s: %w", name, err)
		}
		out[cluster.Component(name)] = abs
	}
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("--bin-dir: %w", err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--bin-dir %s is not a directory", dir)
		}
		for _, comp := range all {
			if _, set := out[comp]; set {
				continue
			}
			p := filepath.Join(abs, string(comp))
			if _, err := os.Stat(p); err == nil {
				out[comp] = p
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("--bin-dir: %w", err)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--bin-dir %s holds none of %s", dir, joinAll(all))
	}
	return out, nil
}

func sortedComponents(m map[cluster.Component]string) []cluster.Component {
	out := make([]cluster.Component, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func joinAll(cs []cluster.Component) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = string(c)
	}
	return strings.Join(parts, ", ")
}

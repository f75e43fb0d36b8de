// Package exampledriver puts the Kubernetes SIG's example DRA driver
// (sigs.k8s.io/dra-example-driver), a driver nobody here wrote, on the
// embedded provider's kubelet node: its kubelet plugin built from the Go
// module proxy at the version tools/build/exampledriverbin pins, its image written
// without Docker, its Helm chart rendered with Helm's own library from that
// version's files and applied, and everything it made removed again.
package exampledriver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/draconform/draconform/tools/build/k8sbuild"
)

const (
	// Module is the example driver's module.
	Module = "sigs.k8s.io/dra-example-driver"
	// pluginPackage is its kubelet plugin, the only part of it the GPU
	// profile runs (the controller and webhook are off in the chart's
	// defaults).
	pluginPackage = Module + "/cmd/dra-example-kubeletplugin"
	// chartPackage renders its chart (tools/build/exampledriverbin/cmd).
	chartPackage = "./cmd/draconform-chart"
	// chartPath is the chart's folder in the module.
	chartPath = "deployments/helm/dra-example-driver"
	// moduleDir is the pinned module, under the repository root.
	moduleDir = "tools/build/exampledriverbin"
)

// PluginBinary and ChartBinary are the names of the built binaries.
var (
	PluginBinary = k8sbuild.BinaryName(pluginPackage)
	ChartBinary  = k8sbuild.BinaryName(chartPackage)
)

// Binaries are what a build gives.
type Binaries struct {
	// Version is the example driver's version the pinned module requires.
	Version string
	// Plugin is the kubelet plugin, Chart the chart renderer.
	Plugin, Chart string
	// ChartDir is the driver's Helm chart, in the Go module cache.
	ChartDir string
}

// BuildOptions says where to build.
type BuildOptions struct {
	RepoRoot string // defaults to k8sbuild.FindRepoRoot()
	CacheDir string // defaults to <RepoRoot>/.cache/k8s
	Log      io.Writer
}

// Build builds (or finds in the binary cache) the example driver's kubelet
// plugin and the chart renderer, statically, in the pinned module, and
// finds the chart of the same version.
func Build(ctx context.Context, o BuildOptions) (Binaries, error) {
	root, cache, err := k8sbuild.Dirs(o.RepoRoot, o.CacheDir)
	if err != nil {
		return Binaries{}, err
	}
	mod := filepath.Join(root, moduleDir)
	version, err := PinnedVersion(mod)
	if err != nil {
		return Binaries{}, err
	}
	binDir, err := k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{
		RepoRoot: root, Version: CacheKey(version), CacheDir: cache, ModuleDir: mod,
		Packages: []string{pluginPackage, chartPackage}, Log: o.Log,
		What: "the example DRA driver " + version + " (kubelet plugin, chart renderer)",
	})
	if err != nil {
		return Binaries{}, fmt.Errorf("building the example driver: %w", err)
	}
	dir, err := moduleFolder(ctx, mod, Module)
	if err != nil {
		return Binaries{}, err
	}
	return Binaries{Version: version, Plugin: filepath.Join(binDir, PluginBinary), Chart: filepath.Join(binDir, ChartBinary),
		ChartDir: filepath.Join(dir, chartPath)}, nil
}

// CacheKey is the binary cache's folder of a version: it changes with the
// version tools/build/exampledriverbin/go.mod requires.
func CacheKey(version string) string { return "dra-example-driver-" + version }

// PinnedVersion is the version of Module that the go.mod in dir requires.
func PinnedVersion(dir string) (string, error) { return k8sbuild.RequiredVersion(dir, Module) }

// moduleFolder is where the go command keeps module mod of the build list
// of the module in dir, downloaded (and checked against its go.sum) first
// if it is not there: the chart is read from the very files the plugin was
// built from.
func moduleFolder(ctx context.Context, dir, mod string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", mod)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// go mod download -json reports a module's own failure in its JSON,
	// with exit status 1.
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr == nil && m.Error != "" {
		return "", fmt.Errorf("finding %s's files (go mod download in %s): %s", mod, dir, m.Error)
	}
	if err != nil {
		return "", fmt.Errorf("finding %s's files (go mod download in %s): %w: %s", mod, dir, err, strings.TrimSpace(stderr.String()))
	}
	if m.Dir == "" {
		return "", errors.New("finding " + mod + "'s files: go mod download named no folder")
	}
	return m.Dir, nil
}

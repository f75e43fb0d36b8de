package usecase

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/lang/loader"
)

// CLI is how draconform clis builds one command-line tool a vendor's
// walkthrough on plain kind types: from the Go module proxy, at the
// version a module of this repository pins, statically (k8sbuild's
// recipe), into the binary cache.
type CLI struct {
	Name string
	// Module is the module whose required version names the build, in
	// ModuleDir (relative to the repository root), where Package is built.
	Module, ModuleDir, Package string
	// Version is the version ModuleDir's go.mod requires of Module.
	Version string
	// Flags stamp the version where the tool would not say it otherwise.
	Flags []string
}

// cliSpec is a CLI before its version is read; stamp gives its linker
// flags for that version.
type cliSpec struct {
	name, module, moduleDir, pkg string
	stamp                        func(version string) string
}

// cliSpecs are the tools draconform clis knows, in the order it lists them.
func cliSpecs() []cliSpec {
	return []cliSpec{
		// kind's version is a constant of its source: nothing to stamp.
		{name: "kind", module: "sigs.k8s.io/kind", moduleDir: ".", pkg: "sigs.k8s.io/kind"},
		// The Helm draconform-chart renders the example driver's chart with.
		// Unstamped, helm version says v4.2 (internal/version's default).
		{name: "helm", module: "helm.sh/helm/v4", moduleDir: "tools/build/exampledriverbin", pkg: "helm.sh/helm/v4/cmd/helm",
			stamp: func(v string) string { return "-X helm.sh/helm/v4/internal/version.version=" + v }},
		// The kubectl of the release the node images run, from the module
		// that builds the embedded control plane's binaries.
		{name: "kubectl", module: "k8s.io/kubernetes", moduleDir: "tools/build/k8sbin", pkg: "k8s.io/kubernetes/cmd/kubectl",
			stamp: k8sbuild.VersionLDFlags},
		// buildinfo.Version also names Sonobuoy's default image
		// (config.DefaultImage), as its own release build stamps it.
		{name: "sonobuoy", module: SonobuoyModule, moduleDir: sonobuoyModuleDir, pkg: SonobuoyModule,
			stamp: func(v string) string { return "-X " + SonobuoyModule + "/pkg/buildinfo.Version=" + v }},
	}
}

// SonobuoyModule is Sonobuoy's module, pinned by tools/build/sonobuoybin.
const SonobuoyModule = "github.com/vmware-tanzu/sonobuoy"

const sonobuoyModuleDir = "tools/build/sonobuoybin"

// CLINames are the tools draconform clis builds.
func CLINames() []string {
	var names []string
	for _, s := range cliSpecs() {
		names = append(names, s.name)
	}
	return names
}

// ResolveCLI says how the tool called name is built in the repository at
// root: its module, package and pinned version.
func ResolveCLI(root, name string) (CLI, error) {
	i := slices.IndexFunc(cliSpecs(), func(s cliSpec) bool { return s.name == name })
	if i < 0 {
		msg := fmt.Sprintf("%s: no tool of that name", name)
		if hint := loader.DidYouMean(name, CLINames()); hint != "" {
			msg += " (" + hint + ")"
		}
		return CLI{}, refuse("%s; draconform clis builds %s", msg, strings.Join(CLINames(), ", "))
	}
	s := cliSpecs()[i]
	version, err := k8sbuild.RequiredVersion(filepath.Join(root, s.moduleDir), s.module)
	if err != nil {
		return CLI{}, fmt.Errorf("the version of %s: %w", name, err)
	}
	c := CLI{Name: name, Module: s.module, ModuleDir: s.moduleDir, Package: s.pkg, Version: version}
	if s.stamp != nil {
		c.Flags = []string{k8sbuild.LinkWith(s.stamp(version))}
	}
	return c, nil
}

// CacheKey is the binary cache's folder of the tool: it changes with the
// pinned version.
func (c CLI) CacheKey() string { return "cli-" + c.Name + "-" + c.Version }

// CLIRequest names the tools to build or find.
type CLIRequest struct {
	Names []string
	// ensure builds, or finds in the cache; k8sbuild.EnsureBinaries but
	// in tests.
	ensure func(context.Context, k8sbuild.BuildOptions) (string, error)
}

// CLIs builds (or finds in the binary cache) each named tool and returns
// the folders that hold them, joined by ':', for PATH. Progress goes to
// s.Err.
func CLIs(ctx context.Context, r CLIRequest, s Streams) (string, error) {
	if len(r.Names) == 0 {
		return "", refuse("name the tools to build: %s", strings.Join(CLINames(), ", "))
	}
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		return "", err
	}
	dirs, err := cliDirs(ctx, root, r, s)
	return strings.Join(dirs, string(filepath.ListSeparator)), err
}

// cliDirs are the folders of the named tools, each once, in the order
// named; every name is checked before anything is built.
func cliDirs(ctx context.Context, root string, r CLIRequest, s Streams) ([]string, error) {
	ensure := r.ensure
	if ensure == nil {
		ensure = k8sbuild.EnsureBinaries
	}
	var clis []CLI
	for _, n := range r.Names {
		c, err := ResolveCLI(root, n)
		if err != nil {
			return nil, err
		}
		clis = append(clis, c)
	}
	var dirs []string
	for _, c := range clis {
		dir, err := ensure(ctx, c.buildOptions(root, s))
		if err != nil {
			return nil, fmt.Errorf("building %s %s: %w", c.Name, c.Version, err)
		}
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return dirs, nil
}

func (c CLI) buildOptions(root string, s Streams) k8sbuild.BuildOptions {
	return k8sbuild.BuildOptions{RepoRoot: root, Version: c.CacheKey(), CacheDir: filepath.Join(root, ".cache", "k8s"),
		ModuleDir: filepath.Join(root, c.ModuleDir), Packages: []string{c.Package}, Flags: c.Flags, Log: s.Err,
		What: fmt.Sprintf("%s %s (static, from %s)", c.Name, c.Version, c.Module)}
}

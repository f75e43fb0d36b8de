package k8sbuild

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// VersionLDFlags are the linker's -X flags that stamp version into
// Kubernetes binaries as its own build does (hack/lib/version.sh), in both
// packages that hold it. Unstamped, a binary built from the module sources
// says v0.0.0-master+$Format:%H$ to --version, /version and a node's
// kubeletVersion, and so in every report made from it.
func VersionLDFlags(version string) string {
	major, minor, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	var flags []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		for _, kv := range [][2]string{{"gitVersion", version}, {"gitMajor", major}, {"gitMinor", minor},
			{"gitTreeState", "clean"}, {"buildDate", "1970-01-01T00:00:00Z"}} {
			flags = append(flags, fmt.Sprintf("-X %s.%s=%s", pkg, kv[0], kv[1]))
		}
	}
	return strings.Join(flags, " ")
}

// kubernetesModule is the module whose version a build of its commands
// reports.
const kubernetesModule = "k8s.io/kubernetes"

// KubernetesVersion is the version of k8s.io/kubernetes that the go.mod in
// moduleDir requires: what a build there compiles, whatever cache key it is
// kept under (--k8s-version names the key, and a download the release).
func KubernetesVersion(moduleDir string) (string, error) {
	return RequiredVersion(moduleDir, kubernetesModule)
}

// RequiredVersion is the version of module that the go.mod in moduleDir
// requires: a pinned module's version, read where it is pinned.
func RequiredVersion(moduleDir, module string) (string, error) {
	path := filepath.Join(moduleDir, "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the version of %s: %w", module, err)
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		return "", fmt.Errorf("reading the version of %s: %w", module, err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == module {
			return r.Mod.Version, nil
		}
	}
	return "", fmt.Errorf("%s requires no %s", path, module)
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster/localnode"
	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// make conformance downloads the Kubernetes and container runtime modules
// ahead only while a binary of each build is missing from the default
// cache. Paths that drifted from where the builds put their binaries would
// download 1.2 GB on every run of a machine that has them built, or never.
func TestMakefileFetchesForTheDefaultCache(t *testing.T) {
	root, cache, err := k8sbuild.Dirs("", "")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, value, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(name, ":?+\t") {
			vars[strings.TrimSpace(name)] = strings.TrimSpace(value)
		}
	}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var prov usecase.Providers
	registerProviders(fs, &prov)
	version := fs.Lookup("k8s-version").DefValue
	rel := func(path string) string {
		r, err := filepath.Rel(root, path)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for name, want := range map[string]string{
		"K8S_BINARIES":  rel(filepath.Join(cache, version, "bin", "kubelet")),
		"NODE_BINARIES": rel(filepath.Join(cache, localnode.RuntimeVersion, "bin", localnode.RuntimeBinaries[0])),
	} {
		if vars[name] != want {
			t.Errorf("the Makefile's %s is %q; the build puts that binary at %q", name, vars[name], want)
		}
	}
	for _, module := range []string{"tools/build/k8sbin", "tools/build/nodebin"} {
		if !strings.Contains(string(data), module+":") {
			t.Errorf("the Makefile fetches no modules for %s", module)
		}
		if _, err := os.Stat(filepath.Join(root, module, "go.mod")); err != nil {
			t.Errorf("the Makefile fetches the modules of %s: %v", module, err)
		}
	}
}

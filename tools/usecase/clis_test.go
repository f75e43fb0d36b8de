package usecase

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/build/k8sbuild"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Each tool is built from the module, in the folder, at the version this
// repository pins: kind where the suite's go.mod pins the kind library,
// helm beside the chart renderer, Sonobuoy in its own module.
func TestEachCLIResolvesToItsPinnedModule(t *testing.T) {
	root := repoRoot(t)
	for _, tt := range []struct{ name, module, dir, pkg, stamp string }{
		{"kind", "sigs.k8s.io/kind", ".", "sigs.k8s.io/kind", ""},
		{"helm", "helm.sh/helm/v4", "tools/build/exampledriverbin", "helm.sh/helm/v4/cmd/helm", "-X helm.sh/helm/v4/internal/version.version="},
		{"sonobuoy", "github.com/vmware-tanzu/sonobuoy", "tools/build/sonobuoybin", "github.com/vmware-tanzu/sonobuoy",
			"-X github.com/vmware-tanzu/sonobuoy/pkg/buildinfo.Version="},
	} {
		c, err := ResolveCLI(root, tt.name)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		gomod, err := os.ReadFile(filepath.Join(root, tt.dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if c.Module != tt.module || c.ModuleDir != tt.dir || c.Package != tt.pkg {
			t.Errorf("%s: module %s in %s, package %s; want %s in %s, %s", tt.name, c.Module, c.ModuleDir, c.Package, tt.module, tt.dir, tt.pkg)
		}
		if c.Version == "" || !strings.Contains(string(gomod), "\t"+tt.module+" "+c.Version+"\n") && !strings.Contains(string(gomod), "require "+tt.module+" "+c.Version+"\n") {
			t.Errorf("%s: version %q is not the one %s/go.mod requires", tt.name, c.Version, tt.dir)
		}
		if want := "cli-" + tt.name + "-" + c.Version; c.CacheKey() != want {
			t.Errorf("%s: cache key %s, want %s", tt.name, c.CacheKey(), want)
		}
		if tt.stamp == "" && len(c.Flags) != 0 || tt.stamp != "" && !slices.Contains(c.Flags, k8sbuild.LinkWith(tt.stamp+c.Version)) {
			t.Errorf("%s: flags %q, want the stamp %q", tt.name, c.Flags, tt.stamp+c.Version)
		}
	}
	if c, _ := ResolveCLI(root, "sonobuoy"); c.Version != "v0.57.3" {
		t.Errorf("sonobuoy %s; the issue pins v0.57.3", c.Version)
	}
}

func TestAnUnknownCLIIsRefusedWithTheList(t *testing.T) {
	root := repoRoot(t)
	for name, want := range map[string]string{"minikube": "minikube: no tool of that name; draconform clis builds kind, helm, kubectl, sonobuoy", "hlem": "did you mean helm"} {
		_, err := ResolveCLI(root, name)
		var r *Refusal
		if !errors.As(err, &r) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a refusal saying %q", name, err, want)
		}
	}
}

// The folders print once each, in the order named, joined for PATH; a
// misspelt name is refused before anything is built.
func TestCLIsPrintsThePATHOfTheNamedTools(t *testing.T) {
	root := repoRoot(t)
	var built []k8sbuild.BuildOptions
	ensure := func(_ context.Context, o k8sbuild.BuildOptions) (string, error) {
		built = append(built, o)
		return filepath.Join(o.CacheDir, o.Version, "bin"), nil
	}
	var errs bytes.Buffer
	path, err := CLIs(context.Background(), CLIRequest{Names: []string{"sonobuoy", "kind", "sonobuoy"}, ensure: ensure}, Streams{Err: &errs})
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(root, ".cache", "k8s")
	sonobuoy, _ := ResolveCLI(root, "sonobuoy")
	kind, _ := ResolveCLI(root, "kind")
	if want := filepath.Join(cache, sonobuoy.CacheKey(), "bin") + ":" + filepath.Join(cache, kind.CacheKey(), "bin"); path != want {
		t.Errorf("PATH %q, want %q", path, want)
	}
	o := built[0]
	if o.ModuleDir != filepath.Join(root, "tools/build/sonobuoybin") || !slices.Equal(o.Packages, []string{SonobuoyModule}) || !slices.Equal(o.Flags, sonobuoy.Flags) || o.Log != &errs {
		t.Errorf("sonobuoy built with %+v", o)
	}
	built = nil
	if _, err := CLIs(context.Background(), CLIRequest{Names: []string{"kind", "minikube"}, ensure: ensure}, Streams{Err: &errs}); err == nil || len(built) != 0 {
		t.Errorf("kind minikube: %v, and %d builds before the refusal", err, len(built))
	}
	if _, err := CLIs(context.Background(), CLIRequest{ensure: ensure}, Streams{Err: &errs}); err == nil || !strings.Contains(err.Error(), "kind, helm, kubectl, sonobuoy") {
		t.Errorf("no name: %v", err)
	}
}

// kind, built for real (a minute or two on 2 cores) into a cache of the
// test's own, says the version the suite's go.mod pins.
func TestKindBuildsAndSaysItsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kind's CLI")
	}
	root := repoRoot(t)
	kind, err := ResolveCLI(root, "kind")
	if err != nil {
		t.Fatal(err)
	}
	o := kind.buildOptions(root, Streams{Err: os.Stderr})
	o.CacheDir = t.TempDir()
	dir, err := k8sbuild.EnsureBinaries(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(dir, "kind"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "kind "+kind.Version+" ") {
		t.Errorf("kind version: %s %v, want kind %s", out, err, kind.Version)
	}
}

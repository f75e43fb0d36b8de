package k8sbuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A build of the default module (tools/build/k8sbin) stamps the Kubernetes
// version its go.mod requires, not the cache key, and records the stamp in
// its recipe; a build of another module is left as it is.
func TestDefaultModuleBuildsAreVersionStamped(t *testing.T) {
	record := fakeGo(t)
	root := t.TempDir()
	mod := filepath.Join(root, "tools", "build", "k8sbin")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	goMod := "module example.com/k8sbin\n\ngo 1.22\n\nrequire (\n\tgo.etcd.io/etcd/v3 v3.7.0\n\tk8s.io/kubernetes v1.36.5\n)\n"
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if _, err := EnsureBinaries(context.Background(), BuildOptions{RepoRoot: root, CacheDir: cache, Version: "a-key"}); err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(record)
	for _, want := range []string{"-X k8s.io/component-base/version.gitVersion=v1.36.5", "-X k8s.io/client-go/pkg/version.gitMinor=36"} {
		if !strings.Contains(string(args), want) {
			t.Errorf("go build was not given %q:\n%s", want, args)
		}
	}
	recipe, _ := os.ReadFile(filepath.Join(cache, "a-key", "recipe"))
	if !strings.Contains(string(recipe), "gitVersion=v1.36.5") {
		t.Errorf("the recipe does not record the stamp, so binaries built unstamped would be reused: %q", recipe)
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(record); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureBinaries(context.Background(), BuildOptions{ModuleDir: other, CacheDir: t.TempDir(), Version: "other", Packages: []string{"./x"}}); err != nil {
		t.Fatal(err)
	}
	if args, _ := os.ReadFile(record); strings.Contains(string(args), "gitVersion") {
		t.Errorf("a build of another module was stamped:\n%s", args)
	}
}

// A stamp and linker flags of the build's own would overwrite one another
// on go build's command line: refused.
func TestStampAndOwnLinkerFlagsAreRefused(t *testing.T) {
	_, err := EnsureBinaries(context.Background(), BuildOptions{ModuleDir: t.TempDir(), CacheDir: t.TempDir(), Version: "v",
		Stamp: "v1.37.2", Flags: []string{LinkWith("-X main.x=y")}})
	if err == nil || !strings.Contains(err.Error(), "-ldflags") {
		t.Fatalf("EnsureBinaries = %v; want it refused for its two -ldflags", err)
	}
}

func TestVersionLDFlags(t *testing.T) {
	got := VersionLDFlags("v1.37.2+kep6406")
	for _, want := range []string{"-X k8s.io/component-base/version.gitVersion=v1.37.2+kep6406", "-X k8s.io/component-base/version.gitMajor=1",
		"-X k8s.io/component-base/version.gitMinor=37", "-X k8s.io/client-go/pkg/version.gitVersion=v1.37.2+kep6406", "-X k8s.io/client-go/pkg/version.gitTreeState=clean"} {
		if !strings.Contains(got, want) {
			t.Errorf("VersionLDFlags lacks %q: %s", want, got)
		}
	}
}

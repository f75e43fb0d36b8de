package k8sbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The Makefile compiles draconform, its tests and vet as the builds it
// starts compile Kubernetes; if the two drift apart, a cold machine compiles
// the packages they share twice and nothing else shows it.
func TestMakefileCompilesAsTheBuildsDo(t *testing.T) {
	root, _, err := Dirs("", "")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var goflags, cgo string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "export GOFLAGS"); ok {
			goflags = v
		}
		if v, ok := strings.CutPrefix(line, "export CGO_ENABLED"); ok {
			cgo = "CGO_ENABLED=" + strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(v), ":="))
		}
	}
	for _, f := range CompileFlags {
		if strings.Contains(f, " ") {
			f = "'" + f + "'" // GOFLAGS splits at spaces outside quotes
		}
		if !strings.Contains(" "+goflags+" ", " "+f+" ") && !strings.Contains(" "+goflags+")", " "+f+")") {
			t.Errorf("the Makefile's GOFLAGS (%q) lacks %s, which every build of the Kubernetes binaries has", goflags, f)
		}
	}
	if cgo != CompileEnv {
		t.Errorf("the Makefile exports %q, the builds %q", cgo, CompileEnv)
	}
}

// draconform and its test driver must take the packages they share with
// the Kubernetes build from the same module versions: one version apart
// (x/net v0.58.0 against v0.57.0) and everything above it (apimachinery,
// client-go) is compiled twice on a cold machine, about 3.7 CPU-minutes here.
func TestSuiteCompilesTheKubernetesBuildsPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the Kubernetes build's packages with go list")
	}
	root, _, err := Dirs("", "")
	if err != nil {
		t.Fatal(err)
	}
	suite := packageModules(t, root, "./tools/cmd/draconform", "./drivers/cmd/draconform-driver")
	kube := packageModules(t, filepath.Join(root, "tools", "build", "k8sbin"), DefaultPackages()...)
	differ := map[string]bool{}
	shared := 0
	for pkg, m := range suite {
		if km, ok := kube[pkg]; ok {
			shared++
			if km != m {
				differ[m+" (the Kubernetes build: "+km+")"] = true
			}
		}
	}
	if len(differ) > 0 {
		var list []string
		for d := range differ {
			list = append(list, d)
		}
		sort.Strings(list)
		t.Errorf("go.mod selects other versions than tools/build/k8sbin/go.mod for packages both compile; align them (go get MODULE@VERSION):\n  %s", strings.Join(list, "\n  "))
	}
	if _, ok := suite["k8s.io/client-go/kubernetes"]; !ok || shared < 100 {
		t.Fatalf("go list found %d packages of the suite, %d of them in the Kubernetes build: not the lists this test is about", len(suite), shared)
	}
}

// packageModules maps the packages pkgs depend on (outside the standard
// library) to their module@version.
func packageModules(t *testing.T, dir string, pkgs ...string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{with .Module}}{{$.ImportPath}} {{.Path}}@{{.Version}}{{end}}"}, pkgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v", dir, err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if pkg, mod, ok := strings.Cut(line, " "); ok {
			got[pkg] = mod
		}
	}
	return got
}

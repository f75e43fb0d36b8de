package build

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/internal/fsutil"
)

func TestApplyText(t *testing.T) {
	src := "func a() {\n\tx := 1\n}\n\nfunc b() {\n\tx := 1\n}\n"
	cases := []struct {
		name    string
		e       Edit
		want    string
		wantErr string
	}{
		{name: "within scopes an ambiguous anchor",
			e:    after("", "f.go", "\tx := 1\n", "\ty := 2\n").in("func b() {"),
			want: "func a() {\n\tx := 1\n}\n\nfunc b() {\n\tx := 1\n\ty := 2\n}\n"},
		{name: "before",
			e:    before("", "f.go", "func b", "// b\n"),
			want: "func a() {\n\tx := 1\n}\n\n// b\nfunc b() {\n\tx := 1\n}\n"},
		{name: "replace",
			e:    replace("", "f.go", "x := 1", "z := 3").in("func a() {"),
			want: "func a() {\n\tz := 3\n}\n\nfunc b() {\n\tx := 1\n}\n"},
		{name: "ambiguous anchor", e: after("", "f.go", "x := 1", ""), wantErr: `f.go: anchor "x := 1" occurs 2 times, want exactly 1`},
		{name: "missing anchor", e: after("", "f.go", "y := 1", "").in("func a() {"), wantErr: `f.go (in func a() {): anchor "y := 1" occurs 0 times`},
		{name: "missing within", e: after("", "f.go", "x := 1", "").in("func c() {"), wantErr: `Within "func c() {" occurs 0 times`},
		{name: "anchor outside within", e: after("", "f.go", "func b", "").in("func a() {"), wantErr: "occurs 0 times"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := applyText(src, c.e)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestEveryMutantHasItsOwnKey(t *testing.T) {
	seen := map[string]string{Key(Options{}): "the prototype"}
	for _, m := range Mutants() {
		k := Key(Options{Mutant: m.Name})
		if len(k) != 12 {
			t.Errorf("mutant %s: key %q, want 12 characters", m.Name, k)
		}
		if other, ok := seen[k]; ok {
			t.Errorf("mutant %s has the key of %s: it would reuse its binaries", m.Name, other)
		}
		seen[k] = m.Name
		if m.Omit == "" && len(m.Edits) == 0 {
			t.Errorf("mutant %s changes nothing", m.Name)
		}
	}
	if _, err := LookupMutant("no-such"); err == nil || !strings.Contains(err.Error(), "without-cache-fix") {
		t.Errorf("unknown mutant: error %v, want one listing the mutants", err)
	}
	if err := (&Options{Mutant: "no-such", RepoRoot: t.TempDir()}).defaults(); err == nil {
		t.Error("options with an unknown mutant are accepted")
	}
}

// TestEditsApplyToBaseSources applies the edits of the prototype and of
// every mutant to the v1.37.2 sources from the module cache, so that an
// anchor that stopped matching fails here in seconds instead of in a long
// build. Nothing is compiled.
func TestEditsApplyToBaseSources(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the Kubernetes sources")
	}
	modDirs := baseModuleDirs(t)
	variants := []Options{{}}
	for _, m := range Mutants() {
		variants = append(variants, Options{Mutant: m.Name})
	}
	for _, o := range variants {
		name := o.Mutant
		if name == "" {
			name = "prototype"
		}
		t.Run(name, func(t *testing.T) {
			roots, all := copyEditedFiles(t, modDirs, EditSet(o))
			files, err := ApplyEdits(roots, all)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d edits applied to %d files", len(all), len(files))
		})
	}
}

func TestBuildModuleReplacesThePatchedModules(t *testing.T) {
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		t.Skip(err)
	}
	goMod, err := os.ReadFile(filepath.Join(root, "tools", "build", "k8sbin", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(goMod)
	for _, e := range goModEdits() {
		if text, err = applyText(text, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"k8s.io/kubernetes => ../src/kubernetes", "k8s.io/api => ../src/api", "k8s.io/dynamic-resource-allocation => ../src/dynamic-resource-allocation"} {
		if !strings.Contains(text, want) {
			t.Errorf("build go.mod lacks %q", want)
		}
	}
}

// baseModuleDirs finds the v1.37.2 sources the edits apply to in the module
// cache, or skips the test where they cannot be had.
func baseModuleDirs(t *testing.T) map[Module]string {
	t.Helper()
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	modDirs := map[Module]string{}
	for mod, ver := range map[Module]string{Kubernetes: KubernetesVersion, API: StagingVersion, DRA: StagingVersion} {
		dir, err := moduleDir(context.Background(), root, string(mod)+"@"+ver)
		if err != nil {
			t.Skipf("module cache: %v", err)
		}
		modDirs[mod] = dir
	}
	return modDirs
}

// copyEditedFiles copies only the files the edits of groups touch, from the
// module cache into a temporary tree, and returns the tree's module roots and
// the edits in the order they apply.
func copyEditedFiles(t *testing.T, modDirs map[Module]string, groups []Group) (map[Module]string, []Edit) {
	t.Helper()
	tmp := t.TempDir()
	roots := map[Module]string{}
	var all []Edit
	for _, g := range groups {
		for _, e := range g.Edits {
			all = append(all, e)
			dst := filepath.Join(tmp, filepath.Base(string(e.Module)))
			roots[e.Module] = dst
			to := filepath.Join(dst, filepath.FromSlash(e.File))
			if _, err := os.Stat(to); err == nil {
				continue
			}
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := fsutil.CopyFile(filepath.Join(modDirs[e.Module], filepath.FromSlash(e.File)), to, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return roots, all
}

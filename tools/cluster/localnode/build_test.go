package localnode

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/draconform/draconform/drivers/deploy"
	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/host/nodeimage"
	"github.com/draconform/draconform/tools/host/ociarchive"
	"github.com/draconform/draconform/tools/internal/fsutil"
)

// A cell run in a process of its own takes the node's binaries its parent
// built, and refuses a record that names a file that is gone, rather than
// start a node on half of them.
func TestReuseNodeBinariesReadsTheParentsRecord(t *testing.T) {
	dir := t.TempDir()
	if _, err := reuseNodeBinaries(dir); err == nil {
		t.Fatal("no record, yet reuse succeeded")
	}
	b := Binaries{Kubelet: filepath.Join(dir, "kubelet"), RuntimeDir: filepath.Join(dir, "runtime"), ToolsDir: filepath.Join(dir, "tools"),
		PauseArchive: filepath.Join(dir, "pause.tar"), DriverArchive: filepath.Join(dir, "driver.tar")}
	for _, f := range []string{b.Kubelet, b.RuntimeDir, b.ToolsDir, b.PauseArchive, b.DriverArchive} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteBuiltRecord(dir, b); err != nil {
		t.Fatal(err)
	}
	got, err := reuseNodeBinaries(dir)
	if err != nil || got != b {
		t.Fatalf("reuse = %+v, %v; want %+v", got, err, b)
	}
	if err := os.Remove(b.DriverArchive); err != nil {
		t.Fatal(err)
	}
	if _, err := reuseNodeBinaries(dir); err == nil || !strings.Contains(err.Error(), "driver.tar") {
		t.Errorf("reuse with the driver's archive gone: %v", err)
	}
}

// The node's own commands and their images are made in the cache and
// linked into each run's folder: a second run finds the commands up to date
// and does not link them again (go build keeps the file, touched, when it
// skips the link), nor writes the images again; each run's folder holds the
// cache's files; and an image whose binary changed is written anew, while
// the earlier run keeps its own.
func TestNodeToolsAndImagesAreMadeOnceAcrossRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the node's tools")
	}
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	o := BuildOptions{RepoRoot: root, CacheDir: cache}
	run := func() Binaries {
		out := t.TempDir()
		b := Binaries{ToolsDir: filepath.Join(out, "node-bin"), PauseArchive: filepath.Join(out, "pause.tar"), DriverArchive: filepath.Join(out, "driver.tar")}
		if err := prepareNodeTools(context.Background(), o, b, nil); err != nil {
			t.Fatal(err)
		}
		return b
	}
	stat := func(p string) os.FileInfo {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	built := filepath.Join(cache, "node-tools", "driver")
	first := run()
	driver, driverImage := stat(filepath.Join(built, "draconform-driver")), stat(first.DriverArchive)
	second := run()
	if !os.SameFile(driver, stat(filepath.Join(built, "draconform-driver"))) {
		t.Error("the second run linked the driver again")
	}
	if !os.SameFile(driverImage, stat(second.DriverArchive)) || !driverImage.ModTime().Equal(stat(second.DriverArchive).ModTime()) {
		t.Error("the second run wrote the driver's image again")
	}
	for _, b := range []Binaries{first, second} {
		for _, pkg := range nodeTools {
			name := k8sbuild.BinaryName(pkg)
			if got := stat(filepath.Join(b.ToolsDir, name)); !os.SameFile(got, stat(filepath.Join(built, name))) || got.Mode().Perm()&0o100 == 0 {
				t.Errorf("%s in %s is not the cache's program", name, b.ToolsDir)
			}
		}
	}

	// A rebuilt driver (go build renames a new file into place) gets a
	// new image; the earlier run's stays as it was.
	tmp := filepath.Join(built, "draconform-driver.new")
	if err := fsutil.CopyFile(filepath.Join(built, "draconform-driver"), tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(tmp, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("changed")
	f.Close()
	if err := os.Rename(tmp, filepath.Join(built, "draconform-driver")); err != nil {
		t.Fatal(err)
	}
	img := ociarchive.Image{Ref: deploy.DefaultImage, Files: map[string]string{"/draconform-driver": filepath.Join(built, "draconform-driver")}, Entrypoint: []string{"/draconform-driver"}}
	cached, err := cachedImage(filepath.Join(built, "images"), img)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(stat(cached), driverImage) {
		t.Error("a changed driver kept its old image")
	}
	if !os.SameFile(stat(first.DriverArchive), driverImage) {
		t.Error("the first run's image changed")
	}
}

// The embedded node's runtime build leaves crictl out (kind nodes alone
// need it); the node image's asks for it and finds the rest built. A fake
// go on PATH records its builds and writes the binaries they name.
func TestOnlyTheNodeImageBuildsCrictl(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	builds := fakeGo(t, root, true)
	for i, withCrictl := range []bool{false, true, false, true} {
		dir, err := EnsureRuntimeBinaries(context.Background(), root, cache, withCrictl, io.Discard)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if _, err := os.Stat(filepath.Join(dir, Crictl)); (err == nil) != (i > 0) {
			t.Errorf("call %d (crictl %v): crictl there: %v", i, withCrictl, err == nil)
		}
	}
	// Each build is two go builds: the runtime without cgo, then runc
	// alone with it.
	got := builds()
	if len(got) != 4 || strings.Contains(got[0], Crictl) || !strings.Contains(got[2], "cri-tools/cmd/crictl") {
		t.Fatalf("builds:\n%s\nwant one without crictl, then one with it, then none", strings.Join(got, "\n"))
	}
	for _, i := range []int{0, 2} {
		if !strings.HasPrefix(got[i], "CGO_ENABLED=0 ") || strings.Contains(got[i], "opencontainers/runc") || !strings.Contains(got[i], "cmd/containerd") {
			t.Errorf("go build %d: %s\nwant containerd and the rest without cgo, runc not among them", i+1, got[i])
		}
		if !strings.HasPrefix(got[i+1], "CGO_ENABLED=1 ") || !strings.HasSuffix(got[i+1], " github.com/opencontainers/runc") || strings.Contains(got[i+1], "cmd/containerd") {
			t.Errorf("go build %d: %s\nwant runc alone, with cgo", i+2, got[i+1])
		}
	}
	if want := append(append([]string{}, RuntimeBinaries...), Crictl); !slices.Equal(nodeimage.RuntimeBinaries, want) {
		t.Errorf("the node image takes %v from the runtime build, which makes %v", nodeimage.RuntimeBinaries, want)
	}
}

// fakeGo puts on PATH a go that records its builds and writes the binaries
// they name, and a pkg-config that finds libseccomp or not; it returns the
// builds recorded so far.
func fakeGo(t *testing.T, root string, libseccomp bool) (builds func() []string) {
	t.Helper()
	bin := t.TempDir()
	record := filepath.Join(bin, "builds")
	script := `#!/bin/sh
echo "CGO_ENABLED=$CGO_ENABLED $*" >> ` + record + `
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
for a in "$@"; do case "$a" in github.com/*|sigs.k8s.io/*) n=$(basename "$a"); printf '#!/bin/true\n' > "$out$n"; chmod +x "$out$n";; esac; done
`
	pkgConfig := "#!/bin/sh\nexit 0\n"
	if !libseccomp {
		pkgConfig = "#!/bin/sh\necho \"Package libseccomp was not found in the pkg-config search path.\" >&2\nexit 1\n"
	}
	for name, text := range map[string]string{"go": script, "pkg-config": pkgConfig} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := os.MkdirAll(filepath.Join(root, "tools", "build", "nodebin"), 0o755); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		data, _ := os.ReadFile(record)
		return strings.Split(strings.TrimSpace(string(data)), "\n")
	}
}

// runc is built with the seccomp tag, so that it applies the profile
// containerd gives every container; the rest of the runtime is not, and a
// cache holding the runtime built before (no seccomp) is not taken for it.
func TestRuncIsBuiltWithSeccomp(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	builds := fakeGo(t, root, true)
	old := filepath.Join(cache, "node-containerd-v2.4.2")
	if err := os.MkdirAll(filepath.Join(old, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range RuntimeBinaries {
		if err := os.WriteFile(filepath.Join(old, "bin", name), []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := EnsureRuntimeBinaries(context.Background(), root, cache, false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) == old {
		t.Errorf("the runtime with a seccomp runc is kept under the key of the one without: %s", dir)
	}
	got := builds()
	if len(got) != 2 {
		t.Fatalf("builds:\n%s\nwant the runtime, then runc", strings.Join(got, "\n"))
	}
	if strings.Contains(got[0], "-tags") {
		t.Errorf("the runtime without cgo is built with seccomp: %s", got[0])
	}
	if !strings.HasSuffix(got[1], " github.com/opencontainers/runc") || !strings.Contains(got[1], " -tags=seccomp ") {
		t.Errorf("runc's build: %s\nwant -tags=seccomp", got[1])
	}
	recipe, _ := os.ReadFile(filepath.Join(filepath.Dir(dir), "recipe"))
	if !strings.Contains(string(recipe), "-tags=seccomp") {
		t.Errorf("the cache's recipe does not say runc has seccomp: %q", recipe)
	}
}

// Without libseccomp's headers the build refuses before compiling
// anything, naming the package to install, rather than making a runc that
// cannot apply a profile.
func TestRuncBuildRefusesWithoutLibseccomp(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	builds := fakeGo(t, root, false)
	_, err := EnsureRuntimeBinaries(context.Background(), root, cache, false, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "libseccomp-dev") {
		t.Fatalf("EnsureRuntimeBinaries without libseccomp = %v; want an error naming libseccomp-dev", err)
	}
	if got := builds(); len(got) != 1 || got[0] != "" {
		t.Errorf("builds ran anyway:\n%s", strings.Join(got, "\n"))
	}
}

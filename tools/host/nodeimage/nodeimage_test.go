package nodeimage

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func kindModuleDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kind").Output()
	if err != nil {
		t.Fatalf("go list -m sigs.k8s.io/kind: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// kind's containerd configuration gets runc's wrapper in every runtime
// that runs runc, and nothing else changes.
func TestNodeConfigTomlPutsTheWrapperInEveryRuncRuntime(t *testing.T) {
	path := filepath.Join(kindModuleDir(t), kindFilesDir, "etc/containerd/config.toml")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := nodeConfigToml(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Count(string(orig), "SystemdCgroup = true")
	if want < 2 {
		t.Fatalf("kind's config has %d runc runtimes; this test expects runc and test-handler", want)
	}
	if n := strings.Count(string(got), `BinaryName = "/usr/local/draconform/draconform-runc"`); n != want {
		t.Errorf("%d BinaryName lines for %d runtimes:\n%s", n, want, got)
	}
	// The entrypoint edits these literal strings with sed.
	for _, s := range []string{`snapshotter = "overlayfs"`, "restrict_oom_score_adj = false", `sandbox_image = "registry.k8s.io/pause:`} {
		if !strings.Contains(string(got), s) {
			t.Errorf("lost %q", s)
		}
	}
	if _, err := nodeConfigToml(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("no error for a missing file")
	}
}

func TestKubeletDefaults(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "kubelet")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := kubeletDefaults(write("KUBELET_EXTRA_ARGS=--runtime-cgroups=/system.slice/containerd.service"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "KUBELET_EXTRA_ARGS=--runtime-cgroups=/system.slice/containerd.service --fail-cgroupv1=false\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A changed file from a newer kind must stop the build, not be
	// half-edited.
	for _, bad := range []string{"KUBELET_EXTRA_ARGS=a\nOTHER=b\n", "# comment\n"} {
		if _, err := kubeletDefaults(write(bad)); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

func TestImageTagFrom(t *testing.T) {
	list := "registry.k8s.io/kube-apiserver:v1.37.2\nregistry.k8s.io/pause:3.10.2\nregistry.k8s.io/etcd:3.7.0-0\nregistry.k8s.io/coredns/coredns:v1.14.6\n"
	if got, err := imageTagFrom(list, corednsRepository); err != nil || got != "v1.14.6" {
		t.Errorf("coredns: %q %v", got, err)
	}
	if got, err := imageTagFrom(list, etcdRepository); err != nil || got != "3.7.0-0" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := imageTagFrom("registry.k8s.io/pause:3.10.2\n", etcdRepository); err == nil {
		t.Error("no error without etcd")
	}
}

func TestWriteTarHasParentsModesAndLinks(t *testing.T) {
	src := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(src, []byte("binary"), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err := writeTar(&buf, []entry{
		{target: "/usr/local/bin/a", src: src, mode: 0o755},
		{target: "/usr/local/bin/b", data: []byte("text"), mode: 0o644},
		{target: "/usr/sbin/iptables", link: "/usr/local/bin/a"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		got = append(got, strings.TrimSpace(h.Name+" "+string(h.Typeflag)+" "+modeString(h.Mode)+" "+h.Linkname+" "+string(data)))
	}
	want := []string{"usr/ 5 755", "usr/local/ 5 755", "usr/local/bin/ 5 755", "usr/local/bin/a 0 755  binary",
		"usr/local/bin/b 0 644  text", "usr/sbin/ 5 755", "usr/sbin/iptables 2 777 /usr/local/bin/a"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tar:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := writeTar(io.Discard, []entry{{target: "relative", data: []byte("x")}}); err == nil {
		t.Error("no error for a relative path")
	}
}

func modeString(m int64) string { return fmtOctal(m) }

func fmtOctal(m int64) string {
	var b []byte
	for m > 0 {
		b = append([]byte{byte('0' + m%8)}, b...)
		m /= 8
	}
	return string(b)
}

// The node gets kind's base files, with the two this project changes
// replaced rather than doubled, and every binary where kind's files
// expect it.
func TestNodeEntries(t *testing.T) {
	dir := t.TempDir()
	for _, set := range [][]string{KubeBinaries, RuntimeBinaries, ToolBinaries, {CoreDNSBinary}} {
		for _, n := range set {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	o := Options{Version: "v1.37.2", KubeBinDir: dir, RuntimeDir: dir, ToolsDir: dir, CoreDNSBinDir: dir, KindDir: kindModuleDir(t)}
	entries, err := nodeEntries(o)
	if err != nil {
		t.Fatal(err)
	}
	byTarget := map[string]entry{}
	for _, e := range entries {
		if _, dup := byTarget[e.target]; dup {
			t.Errorf("%s twice", e.target)
		}
		byTarget[e.target] = e
	}
	for target, mode := range map[string]int64{
		"/usr/local/bin/entrypoint": 0o755, "/kind/bin/mount-product-files.sh": 0o755,
		"/etc/systemd/system/kubelet.service": 0o644, "/etc/containerd/config.toml": 0o644,
		"/usr/bin/kubeadm": 0o755, "/usr/bin/kubelet": 0o755, "/usr/bin/kubectl": 0o755,
		"/usr/local/bin/containerd": 0o755, "/usr/local/bin/crictl": 0o755, "/usr/local/sbin/runc": 0o755,
		"/usr/local/draconform/runc": 0o755, "/usr/local/draconform/draconform-runc": 0o755,
		"/opt/cni/bin/loopback": 0o755, "/usr/local/bin/draconform-podnet": 0o755,
		"/etc/systemd/system/draconform-podnet.service": 0o644, "/kind/manifests/default-cni.yaml": 0o644,
		"/kind/version": 0o644, "/usr/local/bin/draconform-setup": 0o755,
	} {
		e, ok := byTarget[target]
		if !ok {
			t.Errorf("no %s", target)
			continue
		}
		if e.mode != mode {
			t.Errorf("%s mode %o, want %o", target, e.mode, mode)
		}
	}
	if got := string(byTarget["/kind/version"].data); got != "v1.37.2\n" {
		t.Errorf("/kind/version %q", got)
	}
	if !bytes.Contains(byTarget["/etc/default/kubelet"].data, []byte("--fail-cgroupv1=false")) {
		t.Error("kubelet defaults lack --fail-cgroupv1=false")
	}
}

func TestValidateNamesWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	o := Options{Version: "v1.37.2", KubeBinDir: dir, RuntimeDir: dir, ToolsDir: dir, CoreDNSBinDir: dir, KindDir: kindModuleDir(t)}
	err := o.validate()
	if err == nil || !strings.Contains(err.Error(), "kube-apiserver") || !strings.Contains(err.Error(), "kubeadm") {
		t.Errorf("error %v", err)
	}
}

// An image of the same inputs is not built again.
func TestBuildReusesAnImageOfTheSameInputs(t *testing.T) {
	dir := t.TempDir()
	for _, set := range [][]string{KubeBinaries, RuntimeBinaries, ToolBinaries, {CoreDNSBinary}} {
		for _, n := range set {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	d := &fakeDocker{images: map[string]bool{}}
	o := Options{Version: "v1.37.2", EtcdImageTag: "3.7.0-0", CoreDNSImageTag: "v1.14.6", KubeBinDir: dir, RuntimeDir: dir, ToolsDir: dir, CoreDNSBinDir: dir, KindDir: kindModuleDir(t), Docker: d}
	digest, err := inputsDigest(o.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	tag := Repository + ":v1.37.2-" + digest[:12]
	d.images[tag] = true
	got, err := Build(context.Background(), o)
	if err != nil || got != tag {
		t.Fatalf("Build = %q, %v; want %q", got, err, tag)
	}
	if len(d.ran) != 0 {
		t.Errorf("ran docker although the image exists: %q", d.ran)
	}
	// Any changed input is another image.
	if err := os.WriteFile(filepath.Join(dir, "kubelet"), []byte("patched"), 0o755); err != nil {
		t.Fatal(err)
	}
	changed, err := inputsDigest(o.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if changed == digest {
		t.Error("a changed kubelet gives the same digest")
	}
	if err := os.WriteFile(filepath.Join(dir, CoreDNSBinary), []byte("patched"), 0o755); err != nil {
		t.Fatal(err)
	}
	if again, err := inputsDigest(o.withDefaults()); err != nil || again == changed {
		t.Errorf("a changed CoreDNS gives the same digest (%v)", err)
	}
}

type fakeDocker struct {
	images map[string]bool
	ran    []string
}

func (f *fakeDocker) ImageExists(_ context.Context, ref string) bool { return f.images[ref] }
func (f *fakeDocker) Run(_ context.Context, args ...string) ([]byte, error) {
	f.ran = append(f.ran, strings.Join(args, " "))
	return nil, nil
}
func (f *fakeDocker) RunStdin(ctx context.Context, _ io.Reader, args ...string) ([]byte, error) {
	return f.Run(ctx, args...)
}

// An image with KEP-6406 runs the KEP build's kube-apiserver and
// kube-scheduler, the release's other binaries, and never shares a tag
// with the release's image; its alias is given even when it is reused.
func TestAKEPImageRunsTheKEPControlPlaneUnderItsOwnTag(t *testing.T) {
	dir, kep := t.TempDir(), t.TempDir()
	for _, set := range [][]string{KubeBinaries, RuntimeBinaries, ToolBinaries, {CoreDNSBinary}} {
		for _, n := range set {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, n := range KEPBinaries {
		if err := os.WriteFile(filepath.Join(kep, n), []byte("kep "+n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d := &fakeDocker{images: map[string]bool{}}
	vanilla := Options{Version: "v1.37.2", EtcdImageTag: "3.7.0-0", CoreDNSImageTag: "v1.14.6", KubeBinDir: dir, RuntimeDir: dir, ToolsDir: dir, CoreDNSBinDir: dir, KindDir: kindModuleDir(t), Docker: d}
	o := vanilla
	o.KEPBinDir, o.Alias = kep, Repository+":kep6406"
	for name, want := range map[string]string{"kube-apiserver": kep, "kube-scheduler": kep, "kube-controller-manager": dir, "kubelet": dir} {
		if got := o.kubeBinary(name); got != filepath.Join(want, name) {
			t.Errorf("the KEP image's %s is %s, want it from %s", name, got, want)
		}
	}
	plain, err := inputsDigest(vanilla.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	digest, err := inputsDigest(o.withDefaults())
	if err != nil || digest == plain {
		t.Fatalf("the KEP image's digest equals the release's (%v)", err)
	}
	tag := Repository + ":v1.37.2-kep6406-" + digest[:12]
	d.images[tag] = true
	if got, err := Build(context.Background(), o); err != nil || got != tag {
		t.Fatalf("Build = %q, %v; want %q", got, err, tag)
	}
	if want := "tag " + tag + " " + o.Alias; len(d.ran) != 1 || d.ran[0] != want {
		t.Errorf("docker ran %q, want only %q", d.ran, want)
	}
	if err := os.WriteFile(filepath.Join(kep, "kube-scheduler"), []byte("another KEP build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if again, err := inputsDigest(o.withDefaults()); err != nil || again == digest {
		t.Errorf("a changed KEP kube-scheduler gives the same digest (%v)", err)
	}
	if err := os.Remove(filepath.Join(kep, "kube-apiserver")); err != nil {
		t.Fatal(err)
	}
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), "kube-apiserver") {
		t.Errorf("a KEP folder without kube-apiserver: %v", err)
	}
}

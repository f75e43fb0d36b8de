package kindconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The patch files are strategic merge patches of a Pod: decoding them
// strictly into corev1.Pod catches a misspelt field, which kubeadm would
// reject only inside the node, minutes into a cluster start.
func TestPatchFilesMountTheKEPBinaryOverTheImagesOwn(t *testing.T) {
	files := PatchFiles()
	if len(files) != len(KEPBinaries) {
		t.Fatalf("%d patch files for %v", len(files), KEPBinaries)
	}
	for _, comp := range KEPBinaries {
		name := comp + "+strategic.yaml"
		data, ok := files[name]
		if !ok {
			t.Fatalf("no %s (kubeadm names patches <target>+<patchtype>.yaml)", name)
		}
		var pod corev1.Pod
		if err := yaml.UnmarshalStrict([]byte(data), &pod); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(pod.Spec.Containers) != 1 || pod.Spec.Containers[0].Name != comp {
			t.Fatalf("%s: containers %+v, want the one named %s (strategic merge matches by name)", name, pod.Spec.Containers, comp)
		}
		mounts := pod.Spec.Containers[0].VolumeMounts
		if len(mounts) != 1 || mounts[0].MountPath != "/usr/local/bin/"+comp || !mounts[0].ReadOnly {
			t.Errorf("%s: mounts %+v", name, mounts)
		}
		vols := pod.Spec.Volumes
		if len(vols) != 1 || vols[0].Name != mounts[0].Name || vols[0].HostPath == nil {
			t.Fatalf("%s: volumes %+v", name, vols)
		}
		hp := vols[0].HostPath
		if hp.Path != "/draconform/kep-bin/"+comp || hp.Type == nil || *hp.Type != corev1.HostPathFile {
			t.Errorf("%s: hostPath %+v", name, hp)
		}
	}
}

func TestWritePatchFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "patches")
	if err := WritePatchFiles(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range PatchFiles() {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s: %v\n%s", name, err, got)
		}
	}
}

func TestCheckStaticBinary(t *testing.T) {
	notELF := filepath.Join(t.TempDir(), "kube-apiserver")
	// Longer than an ELF header, so that the magic number is what fails.
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"+strings.Repeat("# padding\n", 20)), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, goarch, want string
	}{
		{"missing", filepath.Join(t.TempDir(), "nope"), "amd64", "no such file"},
		{"not ELF", notELF, "amd64", "bad magic number"},
	}
	// A distribution's shell is dynamically linked everywhere we run.
	if sh, err := filepath.EvalSymlinks("/bin/sh"); err == nil {
		tests = append(tests, struct{ name, path, goarch, want string }{"dynamic", sh, goarchOf(t, sh), "dynamically linked"})
		other := "arm64"
		if goarchOf(t, sh) == "arm64" {
			other = "amd64"
		}
		tests = append(tests, struct{ name, path, goarch, want string }{"wrong architecture", sh, other, "is built for"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkStaticBinary(tt.path, tt.goarch)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func goarchOf(t *testing.T, path string) string {
	t.Helper()
	for arch := range elfMachine {
		if checkStaticBinary(path, arch) == nil || !strings.Contains(checkStaticBinary(path, arch).Error(), "is built for") {
			return arch
		}
	}
	t.Skipf("%s is for no architecture the check knows", path)
	return ""
}

func TestCheckKEPBinariesNamesEveryProblem(t *testing.T) {
	err := CheckKEPBinaries(t.TempDir())
	if err == nil {
		t.Fatal("an empty directory passed")
	}
	for _, comp := range KEPBinaries {
		if !strings.Contains(err.Error(), comp) {
			t.Errorf("error does not name %s: %v", comp, err)
		}
	}
}

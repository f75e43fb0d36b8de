package nodeimage

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The rootfs becomes a privileged node: debootstrap checks every package
// against the keyring, and stops rather than go on unchecked.
func TestDebootstrapChecksThePackagesAgainstTheKeyring(t *testing.T) {
	keyring := filepath.Join(t.TempDir(), "debian-archive-keyring.gpg")
	if err := os.WriteFile(keyring, []byte("keys"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Keyring: keyring, Mirror: "http://deb.example/debian", Docker: &fakeDocker{}}.withDefaults()
	args, err := debootstrapArgs(o, "/work/rootfs")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--keyring=" + keyring, "--force-check-gpg"} {
		if !slices.Contains(args, want) {
			t.Errorf("debootstrap %s: no %s", strings.Join(args, " "), want)
		}
	}
	// Options come before the suite, the target and the mirror.
	if tail := args[len(args)-3:]; !slices.Equal(tail, []string{"bookworm", "/work/rootfs", "http://deb.example/debian"}) {
		t.Errorf("debootstrap %s ends with %v", strings.Join(args, " "), tail)
	}
	if got := (Options{Docker: &fakeDocker{}}).withDefaults().Keyring; got != "/usr/share/keyrings/debian-archive-keyring.gpg" {
		t.Errorf("default keyring %q; want Debian's archive keyring", got)
	}
}

// Without the keyring, nothing runs: the error names the file and the
// package that installs it.
func TestAMissingKeyringIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, keyring := range []string{filepath.Join(dir, "absent.gpg"), dir} {
		_, err := debootstrapArgs(Options{Keyring: keyring, Docker: &fakeDocker{}}.withDefaults(), "/work/rootfs")
		if err == nil {
			t.Errorf("keyring %s: debootstrap's arguments made, with nothing to check the packages against", keyring)
			continue
		}
		for _, want := range []string{keyring, "debian-archive-keyring"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("keyring %s: error %q does not name %s", keyring, err, want)
			}
		}
	}
}

// TestDebootstrapKeepsItsMountTableInItsWorkFolder: debootstrap mounts
// /proc and /sys in the rootfs with mount(8), which, as root, makes
// /run/mount on the machine unless LIBMOUNT_UTAB names another place.
func TestDebootstrapKeepsItsMountTableInItsWorkFolder(t *testing.T) {
	o := Options{WorkDir: "/cache/nodeimage/work", Docker: &fakeDocker{}}.withDefaults()
	if got, want := debootstrapUtab(o), "/cache/nodeimage/work/libmount/utab"; got != want {
		t.Errorf("debootstrap's mount table is %s, want %s", got, want)
	}
	if strings.HasPrefix(debootstrapUtab(o), "/run/") {
		t.Error("debootstrap's mount table is on the machine's /run")
	}
}

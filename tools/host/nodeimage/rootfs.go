package nodeimage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/internal/logtail"
)

// rootfsPackages are installed on top of Debian's minbase: kind's base image
// list (images/base/Dockerfile) without what only storage tests and rootless
// nodes use (nfs-common, open-iscsi, fuse-overlayfs, curl).
var rootfsPackages = []string{
	"systemd", "conntrack", "iptables", "nftables", "iproute2", "ethtool", "util-linux", "mount", "kmod",
	"libseccomp2", "pigz", "e2fsprogs", "bash", "ca-certificates", "jq", "procps",
}

// baseRepository tags the imported rootfs, which changes only with the
// package list and the Debian release, so that the Kubernetes parts can be
// rebuilt on it without a new debootstrap.
const baseRepository = "draconform.dev/kind-node-base"

func baseTag(o Options) string {
	h := sha256.Sum256([]byte(builderVersion + "\n" + o.Suite + "\n" + o.Mirror + "\n" + strings.Join(rootfsPackages, ",")))
	return fmt.Sprintf("%s:%s-%s", baseRepository, o.Suite, hex.EncodeToString(h[:])[:12])
}

// ensureRootfs returns the base image, making it with debootstrap and
// `docker import` unless Docker has it.
func ensureRootfs(ctx context.Context, o Options) (string, error) {
	tag := baseTag(o)
	if o.Docker.ImageExists(ctx, tag) {
		fmt.Fprintf(o.Log, "nodeimage: Debian rootfs %s is there already\n", tag)
		return tag, nil
	}
	debootstrap, err := exec.LookPath("debootstrap")
	if err != nil {
		return "", fmt.Errorf("nodeimage: the rootfs is made with debootstrap, which is not installed (apt-get install debootstrap debian-archive-keyring gpgv; make node-image does it): %w", err)
	}
	dir := filepath.Join(o.WorkDir, "rootfs")
	args, err := debootstrapArgs(o, dir)
	if err != nil {
		return "", err
	}
	// debootstrap, and reading what it made, need root; a CI runner's user
	// usually has password-less sudo.
	var asRoot []string
	if os.Geteuid() != 0 {
		if exec.CommandContext(ctx, "sudo", "-n", "true").Run() != nil {
			return "", fmt.Errorf("nodeimage: debootstrap must run as root to make the Debian rootfs (run as root, or with password-less sudo)")
		}
		asRoot = []string{"sudo", "-n"}
		defer exec.Command("sudo", "-n", "rm", "-rf", filepath.Join(o.WorkDir, "rootfs")).Run()
	}
	command := func(name string, args ...string) *exec.Cmd {
		if len(asRoot) == 0 {
			return exec.CommandContext(ctx, name, args...)
		}
		return exec.CommandContext(ctx, asRoot[0], append(append(asRoot[1:], name), args...)...)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("nodeimage: clearing %s: %w", dir, err)
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return "", fmt.Errorf("nodeimage: %w", err)
	}
	defer os.RemoveAll(dir)
	began := time.Now()
	if err := runDebootstrap(o, command, debootstrap, args); err != nil {
		return "", err
	}
	fmt.Fprintf(o.Log, "nodeimage: rootfs made in %s; importing it as %s\n", time.Since(began).Round(time.Second), tag)
	if err := importRootfs(ctx, o, command, dir, tag); err != nil {
		return "", err
	}
	return tag, nil
}

// runDebootstrap runs debootstrap with args through command (as root),
// its mount table in the work folder and its output in debootstrap.log.
func runDebootstrap(o Options, command func(string, ...string) *exec.Cmd, debootstrap string, args []string) error {
	fmt.Fprintf(o.Log, "nodeimage: debootstrap %s (about 2 minutes)\n", strings.Join(args, " "))
	utab := debootstrapUtab(o)
	if err := os.MkdirAll(filepath.Dir(utab), 0o755); err != nil {
		return fmt.Errorf("nodeimage: %w", err)
	}
	cmd := command("env", append([]string{"LIBMOUNT_UTAB=" + utab, debootstrap}, args...)...)
	logFile := filepath.Join(o.WorkDir, "debootstrap.log")
	out, err := os.Create(logFile)
	if err != nil {
		return fmt.Errorf("nodeimage: %w", err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		data, _ := os.ReadFile(logFile)
		return fmt.Errorf("nodeimage: debootstrap failed (log %s): %w\n%s", logFile, err, logtail.Lines(string(data), 15))
	}
	return nil
}

// debootstrapUtab is where mount(8), run by debootstrap for the rootfs's
// /proc and /sys, keeps libmount's table: in the work folder, not
// /run/mount, which it would otherwise make on the machine and leave.
func debootstrapUtab(o Options) string { return filepath.Join(o.WorkDir, "libmount", "utab") }

// DebianArchiveKeyring is where Debian's package debian-archive-keyring
// (on Ubuntu too) puts the keys that sign Debian's archive.
const DebianArchiveKeyring = "/usr/share/keyrings/debian-archive-keyring.gpg"

// debootstrapArgs are debootstrap's arguments for the rootfs in dir. The
// rootfs becomes a privileged node, so every package must be checked:
// --keyring names the keys, and --force-check-gpg makes debootstrap stop
// rather than go on unchecked (it would where it finds no keyring or no
// gpgv). A missing keyring is refused here, before anything runs as root.
func debootstrapArgs(o Options, dir string) ([]string, error) {
	info, err := os.Stat(o.Keyring)
	if err != nil || !info.Mode().IsRegular() {
		why := "it is not a file"
		if err != nil {
			why = err.Error()
		}
		return nil, fmt.Errorf("nodeimage: debootstrap checks Debian's packages against the archive keyring %s, which is missing (%s): install it (apt-get install debian-archive-keyring; make node-image-deps does it)", o.Keyring, why)
	}
	args := []string{"--variant=minbase", "--keyring=" + o.Keyring, "--force-check-gpg",
		"--include=" + strings.Join(rootfsPackages, ","), o.Suite, dir}
	if o.Mirror != "" {
		args = append(args, o.Mirror)
	}
	return args, nil
}

// importRootfs streams the rootfs in dir, read by command (as root where
// it must), into Docker as the image tag.
func importRootfs(ctx context.Context, o Options, command func(name string, args ...string) *exec.Cmd, dir, tag string) error {
	tar := command("tar", "--numeric-owner", "-C", dir, "-c", ".")
	stream, err := tar.StdoutPipe()
	if err != nil {
		return fmt.Errorf("nodeimage: %w", err)
	}
	if err := tar.Start(); err != nil {
		return fmt.Errorf("nodeimage: tar of the rootfs: %w", err)
	}
	_, ierr := o.Docker.RunStdin(ctx, stream, "import", "--message", "Debian "+o.Suite+" minbase for draconform's kind node image", "-", tag)
	terr := tar.Wait()
	if ierr != nil {
		return fmt.Errorf("nodeimage: importing the rootfs: %w", ierr)
	}
	if terr != nil {
		return fmt.Errorf("nodeimage: tar of the rootfs: %w", terr)
	}
	return nil
}

// Package nodeimage builds a kind node image offline: no registry serves
// kind's base image or its node images here, but Debian's packages and the
// Go module proxy are reachable, and they hold everything a node is made
// of. It follows the node image contract of kind v0.33.0, read from kind's
// own sources (docs/notes/kind-node-image-contract.md):
//
//   - a Debian rootfs with systemd, from debootstrap, imported into Docker;
//   - kind's base files (entrypoint, systemd units, containerd and kubelet
//     configuration) copied verbatim from the kind module;
//   - containerd v2, runc (behind draconform-runc, which drops what this
//     machine's capability bounding set lacks) and the CNI plugins, built
//     from the module proxy (tools/build/nodebin);
//   - kubelet, kubeadm and kubectl, and the control plane's images
//     (kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy,
//     etcd, pause), built from k8s.io/kubernetes with the version stamped,
//     and CoreDNS, built from its module (tools/build/corednsbin), all preloaded
//     into the node's containerd as kind preloads them;
//   - a pod network that needs no image (draconform-podnet), in place of
//     kindnet.
//
// The image is tagged with a digest of every input, so it is rebuilt only
// when one changes.
package nodeimage

import (
	"cmp"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/host/engine"
	"github.com/draconform/draconform/tools/internal/bintrust"
)

//go:embed files
var files embed.FS

// Repository is where built node images are tagged; the tag is
// <Version>-<digest of the inputs>.
const Repository = "draconform.dev/kind-node"

// builderVersion changes when the way the image is assembled changes, so
// that an image built by an older builder is not reused. 2: debootstrap
// checks the rootfs's packages against Debian's keyring; a base or node
// image of 1 was made from packages no one checked, and is made again.
const builderVersion = "2"

// KubeBinaries are what KubeBinDir must hold: statically linked (the
// component images have no C library) and stamped with Version, which
// kubeadm checks against the cluster's.
var KubeBinaries = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy", "kubelet", "kubeadm", "kubectl", "etcd"}

// KEPBinaries are what KEPBinDir must hold: the components KEP-6406
// changes.
var KEPBinaries = []string{"kube-apiserver", "kube-scheduler"}

// kubeBinary is the file the image runs as Kubernetes binary name: the
// KEP-6406 build where one is given and changes it, else the release's.
func (o Options) kubeBinary(name string) string {
	if o.KEPBinDir != "" && slices.Contains(KEPBinaries, name) {
		return filepath.Join(o.KEPBinDir, name)
	}
	return filepath.Join(o.KubeBinDir, name)
}

// RuntimeBinaries are what RuntimeDir must hold (tools/build/nodebin's build).
var RuntimeBinaries = []string{"containerd", "ctr", "containerd-shim-runc-v2", "runc", "bridge", "host-local", "loopback", "crictl"}

// CoreDNSBinary is what CoreDNSBinDir must hold (tools/build/corednsbin's build).
const CoreDNSBinary = "coredns"

// ToolBinaries are what ToolsDir must hold, built from this repository.
var ToolBinaries = []string{"draconform-runc", "draconform-pause"}

// Options say what goes into the image and where to work.
type Options struct {
	// Version is the Kubernetes version the binaries are stamped with,
	// e.g. v1.37.2; /kind/version says it to kind.
	Version string
	// EtcdImageTag names the etcd image kubeadm asks for,
	// registry.k8s.io/etcd:<EtcdImageTag>; default what the image's
	// kubeadm says.
	EtcdImageTag string
	// CoreDNSImageTag names the CoreDNS image kubeadm deploys,
	// registry.k8s.io/coredns/coredns:<CoreDNSImageTag>; default what the
	// image's kubeadm says.
	CoreDNSImageTag string
	CoreDNSBinDir   string
	KubeBinDir      string
	// KEPBinDir, when set, holds a kube-apiserver and kube-scheduler that
	// implement KEP-6406 (tools/build/prototype, static), which the
	// control-plane images run in place of KubeBinDir's: KEP-6406 is in
	// no release, so a kind cluster that has it needs an image that does.
	KEPBinDir string
	// Alias is a second tag the built image is given, a name that
	// outlives one build (the kind configs name it); "" for none.
	Alias      string
	RuntimeDir string
	ToolsDir   string
	// KindDir is the kind module's directory (go list -m sigs.k8s.io/kind),
	// whose images/base/files are the node's base files.
	KindDir string
	// WorkDir receives the image archives and the rootfs while they are
	// built.
	WorkDir string
	// Suite is the Debian release of the rootfs; default bookworm, whose
	// systemd still runs on the cgroup v1 hosts this project meets.
	Suite string
	// Mirror is the Debian mirror; default the one apt uses on this host.
	Mirror string
	// Keyring holds the keys debootstrap checks the mirror's packages
	// against; default DebianArchiveKeyring.
	Keyring string
	// Rebuild ignores an existing image with the same inputs.
	Rebuild bool
	Log     io.Writer
	Docker  Docker
}

func (o Options) withDefaults() Options {
	if o.Suite == "" {
		o.Suite = "bookworm"
	}
	if o.Keyring == "" {
		o.Keyring = DebianArchiveKeyring
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Docker == nil {
		// The image is built in draconform's own engine where it runs
		// and DOCKER_HOST names none.
		engine.PointDockerHost()
		o.Docker = execDocker{}
	}
	return o
}

func (o Options) validate() error {
	if o.Version == "" {
		return errors.New("nodeimage: Version is required")
	}
	for _, d := range []struct {
		dir   string
		names []string
	}{{o.KubeBinDir, KubeBinaries}, {o.RuntimeDir, RuntimeBinaries}, {o.ToolsDir, ToolBinaries}, {o.CoreDNSBinDir, []string{CoreDNSBinary}}, {o.KEPBinDir, o.kepBinaries()}} {
		if missing := missingFiles(d.dir, d.names); len(missing) > 0 {
			return fmt.Errorf("nodeimage: %s lacks %s", d.dir, strings.Join(missing, ", "))
		}
	}
	// The image's binaries run as root in a privileged container: each of
	// the build cache is checked against the digest recorded when it was
	// built (bintrust), as the embedded node checks what it starts.
	for _, d := range []struct {
		dir   string
		names []string
	}{{o.KubeBinDir, KubeBinaries}, {o.RuntimeDir, RuntimeBinaries}, {o.CoreDNSBinDir, []string{CoreDNSBinary}}, {o.KEPBinDir, o.kepBinaries()}} {
		for _, n := range d.names {
			if _, err := bintrust.Check(filepath.Join(d.dir, n)); err != nil {
				return fmt.Errorf("nodeimage: %w", err)
			}
		}
	}
	if missing := missingFiles(filepath.Join(o.KindDir, kindFilesDir), []string{"usr/local/bin/entrypoint", "etc/containerd/config.toml"}); len(missing) > 0 {
		return fmt.Errorf("nodeimage: %s is not the kind module (no %s)", o.KindDir, strings.Join(missing, ", "))
	}
	return nil
}

// kepBinaries are the files KEPBinDir must hold: none without one.
func (o Options) kepBinaries() []string {
	if o.KEPBinDir == "" {
		return nil
	}
	return KEPBinaries
}

// EnsureBase makes (or finds) the Debian rootfs image alone: it needs the
// network and little CPU, so it can run while the binaries compile. Only
// Suite, Mirror, Keyring, WorkDir, Log and Docker of o are used.
func EnsureBase(ctx context.Context, o Options) (string, error) {
	return ensureRootfs(ctx, o.withDefaults())
}

// Build returns the tag of a node image made of o's inputs, building it
// if Docker has none.
func Build(ctx context.Context, o Options) (string, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return "", err
	}
	var err error
	if o.EtcdImageTag == "" || o.CoreDNSImageTag == "" {
		etcd, coredns, err := kubeadmImageTags(ctx, o.KubeBinDir, o.Version)
		if err != nil {
			return "", err
		}
		o.EtcdImageTag = cmp.Or(o.EtcdImageTag, etcd)
		o.CoreDNSImageTag = cmp.Or(o.CoreDNSImageTag, coredns)
	}
	began := time.Now()
	digest, err := inputsDigest(o)
	if err != nil {
		return "", err
	}
	tag := fmt.Sprintf("%s:%s-%s", Repository, o.flavour(), digest[:12])
	if !o.Rebuild && o.Docker.ImageExists(ctx, tag) {
		fmt.Fprintf(o.Log, "nodeimage: %s is built already (its inputs are unchanged)\n", tag)
		return tag, o.tagAlias(ctx, tag)
	}
	fmt.Fprintf(o.Log, "nodeimage: building %s (Debian %s rootfs, Kubernetes %s, containerd v2)\n", tag, o.Suite, o.Version)
	base, err := ensureRootfs(ctx, o)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return "", fmt.Errorf("nodeimage: %w", err)
	}
	archives, err := componentImages(ctx, o, base)
	if err != nil {
		return "", err
	}
	if err := assemble(ctx, o, base, tag, archives); err != nil {
		return "", err
	}
	fmt.Fprintf(o.Log, "nodeimage: built %s in %s\n", tag, time.Since(began).Round(time.Second))
	return tag, o.tagAlias(ctx, tag)
}

// flavour is the tag's prefix: the Kubernetes version, and whether the
// control plane has KEP-6406.
func (o Options) flavour() string {
	if o.KEPBinDir != "" {
		return o.Version + "-kep6406"
	}
	return o.Version
}

// tagAlias gives the image its second name, where one is asked for.
func (o Options) tagAlias(ctx context.Context, tag string) error {
	if o.Alias == "" {
		return nil
	}
	if _, err := o.Docker.Run(ctx, "tag", tag, o.Alias); err != nil {
		return fmt.Errorf("nodeimage: tagging %s as %s: %w", tag, o.Alias, err)
	}
	fmt.Fprintf(o.Log, "nodeimage: %s is also tagged %s\n", tag, o.Alias)
	return nil
}

// kindFilesDir is where the kind module keeps its base image's files.
const kindFilesDir = "images/base/files"

// inputsDigest covers every byte that ends up in the image, and the way it
// is put together.
func inputsDigest(o Options) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "builder %s\nversion %s\netcd %s\ncoredns %s\nsuite %s\npackages %s\n", builderVersion, o.Version, o.EtcdImageTag, o.CoreDNSImageTag, o.Suite, strings.Join(rootfsPackages, ","))
	add := func(name, path string) error {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("nodeimage: digest of %s: %w", name, err)
		}
		defer f.Close()
		fmt.Fprintf(h, "file %s\n", name)
		_, err = io.Copy(h, f)
		return err
	}
	for _, d := range []struct {
		dir   string
		names []string
	}{{o.KubeBinDir, KubeBinaries}, {o.RuntimeDir, RuntimeBinaries}, {o.ToolsDir, ToolBinaries}, {o.CoreDNSBinDir, []string{CoreDNSBinary}}} {
		for _, n := range d.names {
			if err := add(n, filepath.Join(d.dir, n)); err != nil {
				return "", err
			}
		}
	}
	// The KEP-6406 build is hashed under names of its own: an image with
	// it never shares a tag with one without.
	for _, n := range o.kepBinaries() {
		if err := add("kep6406/"+n, o.kubeBinary(n)); err != nil {
			return "", err
		}
	}
	kindFiles := filepath.Join(o.KindDir, kindFilesDir)
	var paths []string
	if err := filepath.WalkDir(kindFiles, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	}); err != nil {
		return "", fmt.Errorf("nodeimage: reading kind's base files: %w", err)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if err := add("kind/"+strings.TrimPrefix(p, kindFiles), p); err != nil {
			return "", err
		}
	}
	if err := fs.WalkDir(files, "files", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		fmt.Fprintf(h, "own %s\n%s", p, data)
		return err
	}); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func missingFiles(dir string, names []string) []string {
	var missing []string
	for _, n := range names {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || fi.Size() == 0 {
			missing = append(missing, n)
		}
	}
	return missing
}

package nodeimage

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/draconform/draconform/tools/host/ociarchive"
)

// componentArchive is an image to preload into the node's containerd: an
// archive, the name it carries, and the name pods ask for (different only
// for kube-proxy, whose image is made by Docker under a name of ours, so
// that the engine's own registry.k8s.io images are never touched).
type componentArchive struct {
	path, carries, want string
}

// controlPlaneImages are run by kubeadm's static pods by name, from PATH.
var controlPlaneImages = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"}

// componentImages writes the archives of every image a node runs without a
// registry: the control plane's, etcd's and CoreDNS's (one static binary
// each, FROM scratch, as upstream's distroless images are in effect), the
// sandbox's pause, and kube-proxy, which needs iptables and so is made on the Debian
// rootfs.
func componentImages(ctx context.Context, o Options, base string) ([]componentArchive, error) {
	var out []componentArchive
	for _, c := range controlPlaneImages {
		ref := fmt.Sprintf("registry.k8s.io/%s:%s", c, o.Version)
		if c == "etcd" {
			ref = etcdRepository + ":" + o.EtcdImageTag
		}
		archive := filepath.Join(o.WorkDir, c+"-image.tar")
		img := ociarchive.Image{Ref: ref, Files: map[string]string{"/usr/local/bin/" + c: o.kubeBinary(c)},
			Entrypoint: []string{"/usr/local/bin/" + c}, Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin"}}
		if err := ociarchive.Write(archive, img); err != nil {
			return nil, fmt.Errorf("nodeimage: %w", err)
		}
		out = append(out, componentArchive{path: archive, carries: ref, want: ref})
	}
	pause, err := sandboxImage(o)
	if err != nil {
		return nil, err
	}
	archive := filepath.Join(o.WorkDir, "pause-image.tar")
	if err := ociarchive.Write(archive, ociarchive.Image{Ref: pause, Files: map[string]string{"/pause": filepath.Join(o.ToolsDir, "draconform-pause")}, Entrypoint: []string{"/pause"}}); err != nil {
		return nil, fmt.Errorf("nodeimage: %w", err)
	}
	out = append(out, componentArchive{path: archive, carries: pause, want: pause})
	// kubeadm's CoreDNS Deployment passes only -conf: the entrypoint is the
	// binary, at the path upstream's image has it.
	coredns := corednsRepository + ":" + o.CoreDNSImageTag
	archive = filepath.Join(o.WorkDir, "coredns-image.tar")
	if err := ociarchive.Write(archive, ociarchive.Image{Ref: coredns, Files: map[string]string{"/coredns": filepath.Join(o.CoreDNSBinDir, CoreDNSBinary)}, Entrypoint: []string{"/coredns"}}); err != nil {
		return nil, fmt.Errorf("nodeimage: %w", err)
	}
	out = append(out, componentArchive{path: archive, carries: coredns, want: coredns})
	proxy, err := kubeProxyImage(ctx, o, base)
	if err != nil {
		return nil, err
	}
	return append(out, proxy), nil
}

var sandboxImageRE = regexp.MustCompile(`(?m)^\s*sandbox_image\s*=\s*"([^"]+)"`)

// sandboxImage is the pause image kind's containerd configuration names:
// kind's node build replaces kubeadm's pause with it, and so does this one.
func sandboxImage(o Options) (string, error) {
	data, err := os.ReadFile(filepath.Join(o.KindDir, kindFilesDir, "etc/containerd/config.toml"))
	if err != nil {
		return "", fmt.Errorf("nodeimage: %w", err)
	}
	m := sandboxImageRE.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("nodeimage: kind's containerd configuration names no sandbox_image")
	}
	return string(m[1]), nil
}

// kubeProxyImage is the Debian rootfs with kube-proxy and an
// iptables-wrapper, committed by Docker and saved as an archive.
func kubeProxyImage(ctx context.Context, o Options, base string) (componentArchive, error) {
	want := "registry.k8s.io/kube-proxy:" + o.Version
	carries := Repository + "-kube-proxy:" + o.Version
	name := fmt.Sprintf("draconform-nodeimage-kube-proxy-%d", os.Getpid())
	if _, err := o.Docker.Run(ctx, "create", "--name", name, base, "/usr/local/bin/kube-proxy"); err != nil {
		return componentArchive{}, fmt.Errorf("nodeimage: kube-proxy image: %w", err)
	}
	defer removeContainer(o, name)
	wrapper, err := files.ReadFile("files/iptables-wrapper.sh")
	if err != nil {
		return componentArchive{}, err
	}
	entries := []entry{
		{target: "/usr/local/bin/kube-proxy", src: filepath.Join(o.KubeBinDir, "kube-proxy"), mode: 0o755},
		{target: "/usr/local/bin/iptables-wrapper", data: wrapper, mode: 0o755},
	}
	for _, cmd := range []string{"iptables", "iptables-save", "iptables-restore", "ip6tables", "ip6tables-save", "ip6tables-restore"} {
		entries = append(entries, entry{target: "/usr/sbin/" + cmd, link: "/usr/local/bin/iptables-wrapper"})
	}
	if err := copyInto(func(r io.Reader) error {
		_, err := o.Docker.RunStdin(ctx, r, "cp", "-", name+":/")
		return err
	}, entries); err != nil {
		return componentArchive{}, fmt.Errorf("nodeimage: kube-proxy image: %w", err)
	}
	if _, err := o.Docker.Run(ctx, "commit", "--change", `ENTRYPOINT ["/usr/local/bin/kube-proxy"]`, "--change", "CMD []", name, carries); err != nil {
		return componentArchive{}, fmt.Errorf("nodeimage: kube-proxy image: %w", err)
	}
	archive := filepath.Join(o.WorkDir, "kube-proxy-image.tar")
	_, err = o.Docker.Run(ctx, "save", "-o", archive, carries)
	// The archive is what is kept; the engine keeps no copy.
	if _, rerr := o.Docker.Run(context.Background(), "rmi", carries); rerr != nil {
		fmt.Fprintf(o.Log, "nodeimage: removing %s: %v\n", carries, rerr)
	}
	if err != nil {
		return componentArchive{}, fmt.Errorf("nodeimage: kube-proxy image: %w", err)
	}
	return componentArchive{path: archive, carries: carries, want: want}, nil
}

// removeContainer runs even when ctx is cancelled: an interrupted build must
// not leave its containers behind.
func removeContainer(o Options, name string) {
	if out, err := o.Docker.Run(context.Background(), "rm", "-f", name); err != nil && !strings.Contains(string(out), "No such container") {
		fmt.Fprintf(o.Log, "nodeimage: removing container %s: %v\n", name, err)
	}
}

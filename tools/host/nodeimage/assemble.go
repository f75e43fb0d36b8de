package nodeimage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// runcDir holds the real runc and draconform-runc, which looks for runc
// next to itself; containerd runs the wrapper (see nodeConfigToml).
const runcDir = "/usr/local/draconform"

// nodeEntries are the files the build copies onto the Debian rootfs.
func nodeEntries(o Options) ([]entry, error) {
	out, err := kindEntries(o)
	if err != nil {
		return nil, err
	}
	for _, b := range []string{"kubeadm", "kubelet", "kubectl"} {
		out = append(out, entry{target: "/usr/bin/" + b, src: filepath.Join(o.KubeBinDir, b), mode: 0o755})
	}
	for _, b := range []string{"containerd", "ctr", "containerd-shim-runc-v2", "crictl"} {
		out = append(out, entry{target: "/usr/local/bin/" + b, src: filepath.Join(o.RuntimeDir, b), mode: 0o755})
	}
	out = append(out,
		entry{target: "/usr/local/sbin/runc", src: filepath.Join(o.RuntimeDir, "runc"), mode: 0o755},
		entry{target: runcDir + "/runc", src: filepath.Join(o.RuntimeDir, "runc"), mode: 0o755},
		entry{target: runcDir + "/draconform-runc", src: filepath.Join(o.ToolsDir, "draconform-runc"), mode: 0o755})
	for _, b := range []string{"bridge", "host-local", "loopback"} {
		out = append(out, entry{target: "/opt/cni/bin/" + b, src: filepath.Join(o.RuntimeDir, b), mode: 0o755})
	}
	own := []struct {
		file, target string
		mode         int64
	}{
		{"setup.sh", "/usr/local/bin/draconform-setup", 0o755},
		{"podnet.sh", "/usr/local/bin/draconform-podnet", 0o755},
		{"draconform-podnet.service", "/etc/systemd/system/draconform-podnet.service", 0o644},
		{"default-cni.yaml", "/kind/manifests/default-cni.yaml", 0o644},
	}
	for _, f := range own {
		data, err := files.ReadFile("files/" + f.file)
		if err != nil {
			return nil, err
		}
		out = append(out, entry{target: f.target, data: data, mode: f.mode})
	}
	return append(out, entry{target: "/kind/version", data: []byte(o.Version + "\n"), mode: 0o644}), nil
}

// kindEntries are kind's base files, two of them with a line more.
func kindEntries(o Options) ([]entry, error) {
	var out []entry
	kindFiles := filepath.Join(o.KindDir, kindFilesDir)
	err := filepath.WalkDir(kindFiles, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, kindFiles))
		mode := int64(0o644)
		if strings.HasPrefix(rel, "/usr/local/bin/") || strings.HasPrefix(rel, "/kind/bin/") {
			mode = 0o755
		}
		out = append(out, entry{target: rel, src: p, mode: mode})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("nodeimage: reading kind's base files: %w", err)
	}
	// Two of kind's files get a line more, replaced in place.
	toml, err := nodeConfigToml(filepath.Join(kindFiles, "etc/containerd/config.toml"))
	if err != nil {
		return nil, err
	}
	kubelet, err := kubeletDefaults(filepath.Join(kindFiles, "etc/default/kubelet"))
	if err != nil {
		return nil, err
	}
	out = slices.DeleteFunc(out, func(e entry) bool {
		return e.target == "/etc/containerd/config.toml" || e.target == "/etc/default/kubelet"
	})
	out = append(out, entry{target: "/etc/containerd/config.toml", data: toml, mode: 0o644},
		entry{target: "/etc/default/kubelet", data: kubelet, mode: 0o644})
	return out, nil
}

// nodeConfigToml is kind's containerd configuration with runc behind
// draconform-runc: this host's capability bounding set lacks what runc
// would grant privileged pods (kube-proxy). The runc beside it is built
// with seccomp and keeps every profile (the rootfs has libseccomp2); the
// wrapper changes nothing where neither would be refused.
func nodeConfigToml(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("nodeimage: %w", err)
	}
	const anchor = "SystemdCgroup = true"
	if strings.Count(string(data), anchor) == 0 {
		return nil, fmt.Errorf("nodeimage: kind's containerd configuration has no %q to put runc's wrapper next to", anchor)
	}
	s := strings.ReplaceAll(string(data), anchor, anchor+"\n    # draconform: runc behind the wrapper of tools/cmd/draconform-runc\n    BinaryName = \""+runcDir+"/draconform-runc\"")
	return []byte(s), nil
}

// kubeletDefaults adds --fail-cgroupv1=false to kind's kubelet flags:
// kubelet 1.37 refuses a cgroup v1 host by default, and the hosts this
// project runs on are v1 (hybrid). The flag has no effect on v2.
func kubeletDefaults(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("nodeimage: %w", err)
	}
	s := strings.TrimRight(string(data), "\n")
	if !strings.HasPrefix(s, "KUBELET_EXTRA_ARGS=") || strings.Contains(s, "\n") {
		return nil, fmt.Errorf("nodeimage: kind's /etc/default/kubelet is not the one line KUBELET_EXTRA_ARGS=... it was: %q", s)
	}
	return []byte(s + " --fail-cgroupv1=false\n"), nil
}

// assemble copies the node's files onto the rootfs in a build container,
// runs the set-up kind's base image does, preloads the component images
// into containerd as kind's node build does, and commits the result.
func assemble(ctx context.Context, o Options, base, tag string, archives []componentArchive) error {
	entries, err := nodeEntries(o)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("draconform-nodeimage-build-%d", os.Getpid())
	// Privileged as kind's own build container, for containerd; /run and
	// /tmp are tmpfs so that nothing of the build's processes is committed.
	if _, err := o.Docker.Run(ctx, "run", "-d", "--name", name, "--privileged", "--tmpfs", "/run", "--tmpfs", "/tmp",
		"--entrypoint", "sleep", base, "infinity"); err != nil {
		return fmt.Errorf("nodeimage: starting the build container: %w", err)
	}
	defer removeContainer(o, name)
	step := func(what string, args ...string) error {
		if _, err := o.Docker.Run(ctx, append([]string{"exec", name}, args...)...); err != nil {
			return fmt.Errorf("nodeimage: %s: %w", what, err)
		}
		return nil
	}
	fmt.Fprintf(o.Log, "nodeimage: copying %d files into %s\n", len(entries), name)
	if err := copyInto(func(r io.Reader) error {
		_, err := o.Docker.RunStdin(ctx, r, "cp", "-", name+":/")
		return err
	}, entries); err != nil {
		return fmt.Errorf("nodeimage: copying the node's files: %w", err)
	}
	if err := step("set-up (files/setup.sh)", "/usr/local/bin/draconform-setup"); err != nil {
		return err
	}
	if err := step("removing the set-up script", "rm", "/usr/local/bin/draconform-setup"); err != nil {
		return err
	}
	if err := preload(ctx, o, name, archives); err != nil {
		return err
	}
	if _, err := o.Docker.Run(ctx, "commit",
		"--change", `ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]`,
		"--change", "CMD []",
		"--change", "ENV container=docker",
		// kind's base image also sets STOPSIGNAL SIGRTMIN+3, which docker
		// commit cannot (Docker 20.10: "stopsignal is not a valid change
		// command"); it only matters to `docker stop`, and kind deletes
		// its nodes with `docker rm -f`.
		"--message", "draconform kind node image, Kubernetes "+o.Version,
		name, tag); err != nil {
		return fmt.Errorf("nodeimage: committing %s: %w", tag, err)
	}
	return nil
}

// preload imports the archives into the build container's containerd, in
// the k8s.io namespace and pinned, as kind's node build does, so that no
// pod of the cluster ever needs a registry.
func preload(ctx context.Context, o Options, name string, archives []componentArchive) error {
	if _, err := o.Docker.Run(ctx, "exec", "-d", name, "/usr/local/bin/containerd"); err != nil {
		return fmt.Errorf("nodeimage: starting containerd in the build container: %w", err)
	}
	var last error
	if err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, last = o.Docker.Run(ctx, "exec", name, "ctr", "version")
		return last == nil, nil
	}); err != nil {
		return fmt.Errorf("nodeimage: containerd in the build container did not answer within a minute: %w", errors.Join(err, last))
	}
	for _, a := range archives {
		f, err := os.Open(a.path)
		if err != nil {
			return fmt.Errorf("nodeimage: %w", err)
		}
		_, err = o.Docker.RunStdin(ctx, f, "exec", "-i", name, "ctr", "--namespace=k8s.io", "images", "import",
			"--label=io.cri-containerd.pinned=pinned", "--all-platforms", "--no-unpack", "--digests", "-")
		f.Close()
		if err != nil {
			return fmt.Errorf("nodeimage: importing %s: %w", a.want, err)
		}
		if a.carries != a.want {
			for _, args := range [][]string{{"tag", "--force", a.carries, a.want}, {"rm", a.carries}} {
				if _, err := o.Docker.Run(ctx, append([]string{"exec", name, "ctr", "--namespace=k8s.io", "images"}, args...)...); err != nil {
					return fmt.Errorf("nodeimage: naming %s: %w", a.want, err)
				}
			}
		}
		fmt.Fprintf(o.Log, "nodeimage: preloaded %s\n", a.want)
	}
	listed, err := o.Docker.Run(ctx, "exec", name, "ctr", "--namespace=k8s.io", "images", "list", "--quiet")
	if err != nil {
		return fmt.Errorf("nodeimage: listing the preloaded images: %w", err)
	}
	for _, a := range archives {
		if !slices.Contains(strings.Fields(string(listed)), a.want) {
			return fmt.Errorf("nodeimage: %s is not among the preloaded images after its import:\n%s", a.want, listed)
		}
	}
	if _, err := o.Docker.Run(ctx, "exec", name, "pkill", "--exact", "containerd"); err != nil {
		return fmt.Errorf("nodeimage: stopping containerd in the build container: %w", err)
	}
	// Once gone, its bolt database is closed and consistent.
	if err := wait.PollUntilContextTimeout(ctx, 300*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := o.Docker.Run(ctx, "exec", name, "pgrep", "--exact", "containerd")
		return err != nil, nil
	}); err != nil {
		return fmt.Errorf("nodeimage: containerd in the build container did not stop within 30 s: %w", err)
	}
	return nil
}

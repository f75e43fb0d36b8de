package cli

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster/localnode"
	"github.com/draconform/draconform/tools/host/nodeimage"
	"github.com/spf13/pflag"
)

// nodeImageVersion is the Kubernetes version of the offline kind node image:
// the one the embedded control plane runs.
const nodeImageVersion = "v1.37.2"

// corednsVersion is the CoreDNS tools/build/corednsbin pins: the one kubeadm
// v1.37.2 deploys.
const corednsVersion = "v1.14.6"

// nodeImageCmd prints on stdout the kind node image the gate matrix runs:
// kind's published one where its registry serves it, else the one made
// from Debian's packages and the Go module proxy (built or found), so that
// `--kind-image "$(draconform node-image)"` works; progress goes to stderr.
func nodeImageCmd(fs *pflag.FlagSet) action {
	rebuild := fs.Bool("rebuild", false, "build again even if an image of the same inputs exists")
	mirror := fs.String("mirror", "", "Debian mirror for debootstrap (default debootstrap's)")
	offline := fs.Bool("offline", false, "build draconform's own node image even where kind's published one is served")
	published := fs.String("published-image", nodeimage.Published, "kind's published node image, used where its registry serves it")
	return func(ctx context.Context, args []string, s Streams) int {
		if !*rebuild {
			askCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
			use, why := nodeimage.Pick(askCtx, *published, *offline, http.DefaultClient)
			cancel()
			fmt.Fprintln(s.Err, "draconform node-image:", why)
			if use != "" {
				fmt.Fprintln(s.Out, use)
				return 0
			}
		}
		tag, err := buildNodeImage(ctx, *rebuild, *mirror, s)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform node-image:", err)
			return 1
		}
		fmt.Fprintln(s.Out, tag)
		return 0
	}
}

func buildNodeImage(ctx context.Context, rebuild bool, mirror string, s Streams) (string, error) {
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		return "", err
	}
	cache := filepath.Join(root, ".cache", "k8s")
	work := filepath.Join(root, ".cache", "nodeimage", "work")
	// debootstrap waits on the network while the compilers use the cores.
	type baseResult struct {
		tag string
		err error
	}
	base := make(chan baseResult, 1)
	go func() {
		tag, err := nodeimage.EnsureBase(ctx, nodeimage.Options{WorkDir: work, Mirror: mirror, Log: s.Err})
		base <- baseResult{tag, err}
	}()
	kube, err := k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{
		RepoRoot: root, Version: "kind-node-" + nodeImageVersion, CacheDir: cache, Log: s.Err,
		Packages: []string{"./etcd", "k8s.io/kubernetes/cmd/kube-apiserver", "k8s.io/kubernetes/cmd/kube-controller-manager",
			"k8s.io/kubernetes/cmd/kube-scheduler", "k8s.io/kubernetes/cmd/kube-proxy", "k8s.io/kubernetes/cmd/kubelet",
			"k8s.io/kubernetes/cmd/kubeadm", "k8s.io/kubernetes/cmd/kubectl"},
		// Version-stamped, as every build of tools/build/k8sbin is: kubeadm
		// compares its own version with the cluster's. Static
		// (k8sbuild.CompileEnv): the component images have no C library.
		What: "Kubernetes " + nodeImageVersion + " for the kind node image (static, version-stamped)",
	})
	if err != nil {
		return "", err
	}
	runtimeDir, err := localnode.EnsureRuntimeBinaries(ctx, root, cache, true, s.Err)
	if err != nil {
		return "", err
	}
	coredns, err := k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{
		RepoRoot: root, Version: "coredns-" + corednsVersion, CacheDir: cache, Log: s.Err,
		ModuleDir: filepath.Join(root, "tools", "build", "corednsbin"), Packages: []string{"github.com/coredns/coredns"},
		What: "CoreDNS " + corednsVersion + " for the kind node image (static)",
	})
	if err != nil {
		return "", err
	}
	tools := filepath.Join(root, ".cache", "nodeimage", "tools")
	if err := localnode.BuildTools(ctx, root, tools, s.Err, "./tools/cmd/draconform-runc", "./tools/cmd/draconform-pause"); err != nil {
		return "", err
	}
	kindDir, err := k8sbuild.ModuleDir(ctx, root, "sigs.k8s.io/kind")
	if err != nil {
		return "", err
	}
	if b := <-base; b.err != nil {
		return "", b.err
	}
	return nodeimage.Build(ctx, nodeimage.Options{
		Version: nodeImageVersion, KubeBinDir: kube, RuntimeDir: runtimeDir, ToolsDir: tools, KindDir: kindDir, CoreDNSBinDir: coredns,
		WorkDir: work, Mirror: mirror, Rebuild: rebuild, Log: s.Err,
	})
}

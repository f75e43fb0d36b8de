package usecase

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster/localnode"
	"github.com/draconform/draconform/tools/host/nodeimage"
)

// nodeImageVersion is the Kubernetes version of the offline kind node image:
// the one the embedded control plane runs.
const nodeImageVersion = "v1.37.2"

// corednsVersion is the CoreDNS tools/build/corednsbin pins: the one kubeadm
// v1.37.2 deploys.
const corednsVersion = "v1.14.6"

// NodeImageRequest asks for the kind node image the gate matrix runs:
// kind's published one where its registry serves it (unless Offline or
// Rebuild), else the one made from Debian's packages (from Mirror) and the
// Go module proxy, built or found.
type NodeImageRequest struct {
	Rebuild, Offline  bool
	Mirror, Published string
}

// PublishedNodeImage is kind's published node image.
const PublishedNodeImage = nodeimage.Published

// NodeImage is the image's name; why it was picked, and the builds'
// progress, go to s.Err.
func NodeImage(ctx context.Context, r NodeImageRequest, s Streams) (string, error) {
	if !r.Rebuild {
		askCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		use, why := nodeimage.Pick(askCtx, r.Published, r.Offline, http.DefaultClient)
		cancel()
		fmt.Fprintln(s.Err, "draconform node-image:", why)
		if use != "" {
			return use, nil
		}
	}
	return buildNodeImage(ctx, r.Rebuild, r.Mirror, s)
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

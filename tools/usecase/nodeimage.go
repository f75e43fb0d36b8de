package usecase

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	prototype "github.com/draconform/draconform/tools/build/prototype/build"
	"github.com/draconform/draconform/tools/cluster/kind/kindconfig"
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
	// KEP builds the image with KEP-6406's kube-apiserver and
	// kube-scheduler (the prototype, static) in its control plane, and
	// tags it also as the kind configs' KEP twins name it. No published
	// image has KEP-6406: it is always built.
	KEP bool
}

// KEPNodeImage is the name an image built with KEP-6406 is also tagged
// with: the one kind-configs/*-kep.yaml name.
const KEPNodeImage = kindconfig.KEPImage

// PublishedNodeImage is kind's published node image.
const PublishedNodeImage = nodeimage.Published

// NodeImage is the image's name; why it was picked, and the builds'
// progress, go to s.Err.
func NodeImage(ctx context.Context, r NodeImageRequest, s Streams) (string, error) {
	if !r.Rebuild && !r.KEP {
		askCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		use, why := nodeimage.Pick(askCtx, r.Published, r.Offline, http.DefaultClient)
		cancel()
		fmt.Fprintln(s.Err, "draconform node-image:", why)
		if use != "" {
			return use, nil
		}
	}
	tag, err := buildNodeImage(ctx, r, s)
	if err != nil {
		return "", err
	}
	id, err := nodeimage.ImageID(ctx, tag)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(s.Err, "draconform node-image: %s is image %s\n", tag, id)
	return tag, nil
}

// kepBinaries builds (or finds) the prototype's static kube-apiserver and
// kube-scheduler, for an image with KEP-6406; "" without --kep. The etcd
// and kube-controller-manager its folder holds beside them are the
// image's own (kube): a first node image needs no embedded binaries.
func kepBinaries(ctx context.Context, r NodeImageRequest, root, cache, kube string, s Streams) (string, error) {
	if !r.KEP {
		return "", nil
	}
	return prototype.Ensure(ctx, prototype.Options{RepoRoot: root, CacheDir: cache, VanillaBinDir: kube, Static: true, Log: s.Err})
}

func buildNodeImage(ctx context.Context, r NodeImageRequest, s Streams) (string, error) {
	rebuild, mirror := r.Rebuild, r.Mirror
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
	kube, runtimeDir, coredns, err := nodeImageBinaries(ctx, root, cache, s)
	if err != nil {
		return "", err
	}
	kep, err := kepBinaries(ctx, r, root, cache, kube, s)
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
	alias := ""
	if r.KEP {
		alias = kindconfig.KEPImage
	}
	return nodeimage.Build(ctx, nodeimage.Options{
		Version: nodeImageVersion, KubeBinDir: kube, KEPBinDir: kep, Alias: alias, RuntimeDir: runtimeDir, ToolsDir: tools, KindDir: kindDir, CoreDNSBinDir: coredns,
		WorkDir: work, Mirror: mirror, Rebuild: rebuild, Log: s.Err,
	})
}

// nodeImageBinaries builds (or finds) what every node image holds: the
// release's Kubernetes binaries, the container runtime and CoreDNS.
func nodeImageBinaries(ctx context.Context, root, cache string, s Streams) (kube, runtimeDir, coredns string, err error) {
	kube, err = k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{
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
		return "", "", "", err
	}
	runtimeDir, err = localnode.EnsureRuntimeBinaries(ctx, root, cache, true, s.Err)
	if err != nil {
		return "", "", "", err
	}
	coredns, err = k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{
		RepoRoot: root, Version: "coredns-" + corednsVersion, CacheDir: cache, Log: s.Err,
		ModuleDir: filepath.Join(root, "tools", "build", "corednsbin"), Packages: []string{"github.com/coredns/coredns"},
		What: "CoreDNS " + corednsVersion + " for the kind node image (static)",
	})
	if err != nil {
		return "", "", "", err
	}
	return kube, runtimeDir, coredns, nil
}

package localnode

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/draconform/draconform/drivers/mutant"
	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
)

// Binaries is what a node runs (the contract's, since a run builds
// them before its cells start).
type Binaries = cluster.NodeBinaries

// RuntimeBinaries are the container runtime's programs the embedded node
// runs, from the module proxy: containerd 2 (for CDI, which containerd 1.6
// lacks), its runc shim and client, runc, the CNI plugins the node's
// network uses.
var RuntimeBinaries = []string{"containerd", "ctr", "containerd-shim-runc-v2", "runc", "bridge", "host-local", "loopback"}

// Crictl is the runtime's binary only kind nodes need (the kind provider
// reads components' logs and gates with it): left out of the embedded
// node's build, it saves a cold run 53 CPU-s (190 packages of its own).
const Crictl = "crictl"

// RuntimeVersion keys the runtime binaries in the build cache; it
// changes with tools/build/nodebin/go.mod, and with how runc is built
// (-seccomp: with libseccomp, where an older cache holds a runc without).
const RuntimeVersion = "node-containerd-v2.4.2-seccomp"

// nodebinPackages are the commands tools/build/nodebin builds without cgo, and
// with runcPackage named as RuntimeBinaries.
var nodebinPackages = []string{
	"github.com/containerd/containerd/v2/cmd/containerd",
	"github.com/containerd/containerd/v2/cmd/ctr",
	"github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2",
	"github.com/containernetworking/plugins/plugins/main/bridge",
	"github.com/containernetworking/plugins/plugins/ipam/host-local",
	"github.com/containernetworking/plugins/plugins/main/loopback",
}

// runcPackage is the one runtime command built with cgo: runc's nsenter
// is C, run before the Go runtime starts.
const runcPackage = "github.com/opencontainers/runc"

// runcFlags build runc with seccomp, as runc's own Makefile does: linked
// with libseccomp, it applies the profile the CRI plugin gives every
// container (the runtime's default), which a runc without the tag refuses.
var runcFlags = []string{"-tags=seccomp"}

// crictlPackage builds Crictl.
const crictlPackage = "sigs.k8s.io/cri-tools/cmd/crictl"

// BuildOptions says where to build a node's binaries.
type BuildOptions struct {
	RepoRoot string // defaults to FindRepoRoot()
	CacheDir string // defaults to <RepoRoot>/.cache/k8s
	// KubeletBinDir holds the kubelet (the v1.37.2 build: KEP-6406 does not
	// change the kubelet, so every implementation's node runs it).
	KubeletBinDir string
	// OutDir receives the binaries built from this repository and the
	// image archives; they follow the checkout, so they are built anew
	// each run (seconds, with Go's build cache).
	OutDir string
	// DriverMutant builds the test driver as a deliberately broken variant
	// (drivers/mutant), for draconform mutation; empty for the real one.
	DriverMutant string
	// Reuse takes what an earlier EnsureBinaries of this run recorded
	// in OutDir (builtRecord) instead of building again.
	Reuse bool
	Log   io.Writer
}

// builtRecord is the file in OutDir that lists what EnsureBinaries
// built there, for Reuse.
const builtRecord = "node-binaries.json"

// EnsureBinaries builds (or finds) everything a node runs.
func EnsureBinaries(ctx context.Context, o BuildOptions) (Binaries, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Reuse {
		return reuseNodeBinaries(o.OutDir)
	}
	if o.RepoRoot == "" {
		root, err := k8sbuild.FindRepoRoot()
		if err != nil {
			return Binaries{}, err
		}
		o.RepoRoot = root
	}
	kubelet := filepath.Join(o.KubeletBinDir, "kubelet")
	if missing := k8sbuild.Missing(o.KubeletBinDir, []string{"kubelet"}); len(missing) > 0 {
		return Binaries{}, fmt.Errorf("no kubelet in %s (build it: go run ./tools/cmd/draconform binaries)", o.KubeletBinDir)
	}
	runtimeDir, err := EnsureRuntimeBinaries(ctx, o.RepoRoot, o.CacheDir, false, o.Log)
	if err != nil {
		return Binaries{}, err
	}
	tools := filepath.Join(o.OutDir, "node-bin")
	var flags []string
	if o.DriverMutant != "" {
		flag, err := mutant.LinkerFlag(o.DriverMutant)
		if err != nil {
			return Binaries{}, err
		}
		flags = []string{k8sbuild.LinkWith(flag)}
	}
	b := Binaries{Kubelet: kubelet, RuntimeDir: runtimeDir, ToolsDir: tools,
		PauseArchive: filepath.Join(o.OutDir, "pause-image.tar"), DriverArchive: filepath.Join(o.OutDir, "testdriver-image.tar")}
	if err := prepareNodeTools(ctx, o, b, flags); err != nil {
		return Binaries{}, err
	}
	if err := WriteBuiltRecord(o.OutDir, b); err != nil {
		return Binaries{}, err
	}
	return b, nil
}

func WriteBuiltRecord(dir string, b Binaries) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the node's binaries: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, builtRecord), data, 0o644); err != nil {
		return fmt.Errorf("recording the node's binaries: %w", err)
	}
	return nil
}

// reuseNodeBinaries reads what EnsureBinaries recorded in dir, and
// checks that it is all there.
func reuseNodeBinaries(dir string) (Binaries, error) {
	var b Binaries
	path := filepath.Join(dir, builtRecord)
	data, err := os.ReadFile(path)
	if err != nil {
		return b, fmt.Errorf("the node's binaries were to be built already: %w", err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("reading %s: %w", path, err)
	}
	for _, f := range []string{b.Kubelet, b.RuntimeDir, b.ToolsDir, b.PauseArchive, b.DriverArchive} {
		if _, err := os.Stat(f); err != nil {
			return b, fmt.Errorf("the node's binaries recorded in %s: %w", path, err)
		}
	}
	return b, nil
}

// EnsureRuntimeBinaries builds (or finds) RuntimeBinaries, which the
// embedded node and the offline kind node image both run, and Crictl too
// when withCrictl (the kind node image). One cache folder holds both sets.
func EnsureRuntimeBinaries(ctx context.Context, repoRoot, cacheDir string, withCrictl bool, log io.Writer) (string, error) {
	pkgs := nodebinPackages
	if withCrictl {
		pkgs = append(append([]string{}, pkgs...), crictlPackage)
	}
	return k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{
		RepoRoot: repoRoot, Version: RuntimeVersion, CacheDir: cacheDir,
		ModuleDir: filepath.Join(repoRoot, "tools", "build", "nodebin"),
		Packages:  pkgs, Log: log, What: "container runtime (containerd, runc, CNI plugins)",
		// Built apart, runc alone compiles with cgo on; the rest takes the
		// standard library (and the few modules of the same version) from
		// the Kubernetes builds: 207 CPU-s instead of 237 after them.
		Cgo: []string{runcPackage}, CgoFlags: runcFlags, CgoCheck: libseccompPresent,
	})
}

// BuildTools builds commands of this repository (draconform-runc,
// draconform-pause, the test driver) statically into dir.
func BuildTools(ctx context.Context, repoRoot, dir string, log io.Writer, pkgs ...string) error {
	// Without VCS stamping, the same sources give the same bytes whatever
	// the checkout's state, so images keyed by content are not rebuilt.
	return goBuild(ctx, repoRoot, dir, []string{"-buildvcs=false"}, log, pkgs...)
}

// goBuild builds pkgs of the repository's own module into dir, statically
// (k8sbuild.CompileEnv).
func goBuild(ctx context.Context, repoRoot, dir string, flags []string, log io.Writer, pkgs ...string) error {
	return k8sbuild.GoBuild{ModuleDir: repoRoot, Flags: flags,
		Packages: pkgs, OutDir: dir, Who: "local", Quiet: true, Log: log}.Run(ctx)
}

package localcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/draconform/draconform/tools/buildcache"
)

// DefaultPackages are the commands the tools/k8sbin module builds: the control
// plane the provider runs, and the kubelet of its node.
func DefaultPackages() []string {
	return []string{
		"./etcd",
		"k8s.io/kubernetes/cmd/kube-apiserver",
		"k8s.io/kubernetes/cmd/kube-scheduler",
		"k8s.io/kubernetes/cmd/kube-controller-manager",
		"k8s.io/kubernetes/cmd/kubelet",
	}
}

// BuildOptions says which binaries to build and where to keep them. The cache
// key is Version, so a patched build from another module dir lives next to
// the released one under its own key.
type BuildOptions struct {
	RepoRoot  string // defaults to FindRepoRoot()
	Version   string // cache key, e.g. "v1.37.2"
	ModuleDir string // module holding the commands; defaults to <RepoRoot>/tools/k8sbin
	CacheDir  string // defaults to <RepoRoot>/.cache/k8s
	// Packages to build; the binary name is the last path element. Defaults
	// to DefaultPackages().
	Packages []string
	// What names the binaries in progress lines; default "Kubernetes
	// <Version> binaries".
	What string
	// Env is added to the build's environment (CGO_ENABLED, GOFLAGS).
	Env []string
	// Flags go to go build before the packages (-ldflags, -trimpath).
	Flags []string
	Log   io.Writer
}

// EnsureBinaries returns <CacheDir>/<Version>/bin once every binary is there,
// building them first if needed. Builds are serialised through an flock so
// that parallel test processes build once and share the result.
func EnsureBinaries(ctx context.Context, o BuildOptions) (string, error) {
	if err := o.defaults(); err != nil {
		return "", err
	}
	keyDir := filepath.Join(o.CacheDir, o.Version)
	binDir := filepath.Join(keyDir, "bin")
	if missing := missingBinaries(binDir, o.Packages); len(missing) == 0 {
		return binDir, nil
	}
	if err := os.MkdirAll(keyDir, 0o755); err != nil {
		return "", fmt.Errorf("creating binary cache %s: %w", keyDir, err)
	}
	unlock, err := buildcache.Lock(ctx, filepath.Join(keyDir, ".lock"), o.Log, "local")
	if err != nil {
		return "", err
	}
	defer unlock()

	// Another process may have built while we waited for the lock.
	missing := missingBinaries(binDir, o.Packages)
	if len(missing) == 0 {
		return binDir, nil
	}
	fmt.Fprintf(o.Log, "local: building %s (a cold build takes minutes: Kubernetes ~10-17 min on 2 cores) from %s; missing: %s\n",
		o.What, o.ModuleDir, strings.Join(missing, ", "))
	start := time.Now()
	if err := build(ctx, o, keyDir, binDir); err != nil {
		return "", err
	}
	if missing := missingBinaries(binDir, o.Packages); len(missing) > 0 {
		return "", fmt.Errorf("build of %s finished but %s still missing in %s", o.Version, strings.Join(missing, ", "), binDir)
	}
	fmt.Fprintf(o.Log, "local: built %s in %s\n", o.What, time.Since(start).Round(time.Second))
	return binDir, nil
}

func (o *BuildOptions) defaults() error {
	if o.Version == "" {
		return errors.New("BuildOptions.Version is required")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	// The build's output and the heartbeat write concurrently.
	o.Log = buildcache.NewSyncWriter(o.Log)
	if len(o.Packages) == 0 {
		o.Packages = DefaultPackages()
	}
	if o.What == "" {
		o.What = "Kubernetes " + o.Version + " binaries"
	}
	if o.RepoRoot == "" && (o.ModuleDir == "" || o.CacheDir == "") {
		root, err := FindRepoRoot()
		if err != nil {
			return err
		}
		o.RepoRoot = root
	}
	if o.ModuleDir == "" {
		o.ModuleDir = filepath.Join(o.RepoRoot, "tools", "k8sbin")
	}
	if o.CacheDir == "" {
		o.CacheDir = filepath.Join(o.RepoRoot, ".cache", "k8s")
	}
	return nil
}

// binaryName is what `go build -o dir/` names the output of pkg.
func binaryName(pkg string) string {
	return path.Base(strings.TrimSuffix(pkg, "/"))
}

func missingBinaries(binDir string, pkgs []string) []string {
	var missing []string
	for _, pkg := range pkgs {
		name := binaryName(pkg)
		fi, err := os.Stat(filepath.Join(binDir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 || fi.Size() == 0 {
			missing = append(missing, name)
		}
	}
	return missing
}

// build writes into a scratch dir and renames into binDir, so that a reader
// that does not take the lock never sees a half-written binary.
func build(ctx context.Context, o BuildOptions, keyDir, binDir string) error {
	tmp, err := os.MkdirTemp(keyDir, "bin.tmp-")
	if err != nil {
		return fmt.Errorf("creating build dir: %w", err)
	}
	defer os.RemoveAll(tmp)

	args := append(append(append([]string{"build"}, o.Flags...), "-o", tmp+string(filepath.Separator)), o.Packages...)
	// The module dir is its own module; a go.work higher up must not pull it
	// into the suite's build list.
	cmd, err := goCommand(ctx, o.ModuleDir, append([]string{"GOWORK=off"}, o.Env...), args...)
	if err != nil {
		return err
	}
	cmd.Stdout = o.Log
	cmd.Stderr = o.Log
	fmt.Fprintf(o.Log, "local: (cd %s && go %s)\n", o.ModuleDir, strings.Join(args, " "))
	// go build is silent until it fails or ends; a heartbeat shows a long
	// cold build is alive.
	stopBeat := buildcache.Heartbeat(o.Log, time.Minute, "local: still building "+o.What)
	err = cmd.Run()
	stopBeat()
	if err != nil {
		return fmt.Errorf("building %s in %s: %w", o.What, o.ModuleDir, err)
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", binDir, err)
	}
	for _, pkg := range o.Packages {
		name := binaryName(pkg)
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(binDir, name)); err != nil {
			return fmt.Errorf("installing %s into %s: %w", name, binDir, err)
		}
	}
	return nil
}

// goCommand is the go command run in dir with env added to ours.
// Cancelling ctx also stops the compilers and linkers it spawns, and the
// whole build dies with this process.
func goCommand(ctx context.Context, dir string, env []string, args ...string) (*exec.Cmd, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("finding the go command: %w", err)
	}
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd, nil
}

// FindRepoRoot walks up from the working directory to this repository.
func FindRepoRoot() (string, error) { return buildcache.FindRepoRoot() }

package k8sbuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// DefaultPackages are the commands the tools/build/k8sbin module builds: the control
// plane the embedded provider runs, and the kubelet of its node.
func DefaultPackages() []string {
	return []string{
		"./etcd",
		"k8s.io/kubernetes/cmd/kube-apiserver",
		"k8s.io/kubernetes/cmd/kube-scheduler",
		"k8s.io/kubernetes/cmd/kube-controller-manager",
		"k8s.io/kubernetes/cmd/kubelet",
	}
}

// BuildOptions says which binaries of a module to build and where to keep
// them. The cache key is Version, so a build from another module dir lives
// next to the released one under its own key.
type BuildOptions struct {
	RepoRoot  string // defaults to FindRepoRoot()
	Version   string // cache key, e.g. "v1.37.2"
	ModuleDir string // module holding the commands; defaults to <RepoRoot>/tools/build/k8sbin
	CacheDir  string // defaults to <RepoRoot>/.cache/k8s
	// Packages to build; the binary name is the last path element. Defaults
	// to DefaultPackages().
	Packages []string
	// What names the binaries in progress lines; default "Kubernetes
	// <Version> binaries".
	What string
	// Env is added to the build's environment after CompileEnv.
	Env []string
	// Cgo are packages that need cgo, built after Packages in a go build
	// of their own with CGO_ENABLED=1. Apart, since a package compiled
	// with cgo on differs from the one the other builds compiled (the
	// standard library's net and os/user, and all above them), so one
	// build with cgo on compiles again what the rest share.
	Cgo []string
	// CgoFlags go to the build of Cgo alone, after Flags: build tags that
	// need a C library (runc's seccomp) change no other package.
	CgoFlags []string
	// CgoCheck, when set, says what the machine lacks to build Cgo (a C
	// library's headers); it is asked only when Cgo is to be built, so a
	// filled cache needs none of it.
	CgoCheck func() error
	// Flags go to go build after CompileFlags (an -ldflags of its own,
	// which Stamp does not combine with).
	Flags []string
	// Stamp is the version the binaries report (VersionLDFlags); builds
	// of the default ModuleDir stamp the Kubernetes version it requires,
	// as the release binaries a download gives are.
	Stamp string
	// ReleaseURL, when set, is where to download the binaries Kubernetes
	// publishes for Version (see ReleaseURL()), instead of compiling them,
	// when ReleaseDigests pins them all; an unreachable server means
	// building them. An https URL only, unless PlainReleaseURL.
	ReleaseURL string
	// ReleaseDigests pins the SHA-256 of each release binary, by
	// ReleaseKey; nil: ReleaseDigests().
	ReleaseDigests map[string]string
	// PlainReleaseURL lets ReleaseURL be other than https: for tests'
	// servers, never set from the environment.
	PlainReleaseURL bool
	Log             io.Writer
}

// EnsureBinaries returns <CacheDir>/<Version>/bin once every binary is there,
// building them first if needed.
func EnsureBinaries(ctx context.Context, o BuildOptions) (string, error) {
	if err := o.defaults(); err != nil {
		return "", err
	}
	var names []string
	for _, p := range append(append([]string{}, o.Packages...), o.Cgo...) {
		names = append(names, BinaryName(p))
	}
	log := NewSyncWriter(o.Log)
	c := Cache{KeyDir: filepath.Join(o.CacheDir, o.Version), Names: names, Recipe: o.recipe(), Who: "local", Log: log}
	binDir, _, err := c.Ensure(ctx, func(ctx context.Context, scratch string, missing []string) error {
		if len(o.Cgo) > 0 && o.CgoCheck != nil {
			// Before any build, so a machine that cannot build Cgo
			// learns it in a second instead of after the rest.
			if err := o.CgoCheck(); err != nil {
				return err
			}
		}
		pkgs := o.download(ctx, scratch, log)
		if len(pkgs)+len(o.Cgo) == 0 {
			return nil
		}
		log.Printf("local: building %s (a cold build takes minutes: Kubernetes ~10-17 min on 2 cores) from %s; missing: %s",
			o.What, o.ModuleDir, strings.Join(missing, ", "))
		// The module dir is its own module; a go.work higher up must not
		// pull it into the suite's build list.
		env := append([]string{"GOWORK=off"}, o.Env...)
		build := GoBuild{ModuleDir: o.ModuleDir, Env: env, Flags: o.flags(), OutDir: scratch, Who: "local", What: o.What, Log: log}
		if len(pkgs) > 0 {
			build.Packages = pkgs
			if err := build.Run(ctx); err != nil {
				return err
			}
		}
		if len(o.Cgo) == 0 {
			return nil
		}
		build.Packages, build.Env, build.What = o.Cgo, append(env, cgoOn), strings.Join(o.Cgo, " ")+" (cgo)"
		build.Flags = append(append([]string{}, build.Flags...), o.CgoFlags...)
		return build.Run(ctx)
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", o.Version, err)
	}
	return binDir, nil
}

// download fetches the published binaries of o.Packages into scratch where
// o.ReleaseURL serves them, and returns the packages left to build: all of
// them when their digests are not all pinned, the server is unreachable
// or a file is refused.
func (o BuildOptions) download(ctx context.Context, scratch string, log *SyncWriter) []string {
	if o.ReleaseURL == "" {
		return o.Packages
	}
	var names, rest []string
	for _, p := range o.Packages {
		if n := BinaryName(p); released[n] {
			names = append(names, n)
		} else {
			rest = append(rest, p)
		}
	}
	if len(names) == 0 {
		return o.Packages
	}
	pins, unpinned := o.pins(names)
	if len(unpinned) > 0 {
		log.Printf("local: draconform pins no digest of the %s release's %s for %s/%s (ReleaseDigests): building them, since a download would be vouched for by its server alone",
			o.Version, strings.Join(unpinned, ", "), runtime.GOOS, runtime.GOARCH)
		return o.Packages
	}
	err := Download(ctx, o.ReleaseURL, o.Version, names, pins, scratch, log)
	switch {
	case err == nil:
		return rest
	case errors.Is(err, errUnreachable):
		log.Printf("local: no release binaries of %s from %s (%v): building them", o.Version, o.ReleaseURL, err)
	default:
		log.Printf("local: the release binaries of %s from %s are not usable (%v): building them instead", o.Version, o.ReleaseURL, err)
	}
	return o.Packages
}

// pins are the pinned digests of the release's names, by name, and the
// names pinned by none.
func (o BuildOptions) pins(names []string) (map[string]string, []string) {
	all := o.ReleaseDigests
	if all == nil {
		all = ReleaseDigests()
	}
	pins := map[string]string{}
	var unpinned []string
	for _, n := range names {
		if d := all[ReleaseKey(o.Version, runtime.GOOS, runtime.GOARCH, n)]; d != "" {
			pins[n] = d
		} else {
			unpinned = append(unpinned, n)
		}
	}
	return pins, unpinned
}

// cgoOn is the environment of the builds of BuildOptions.Cgo.
const cgoOn = "CGO_ENABLED=1"

// recipe names how the binaries are made; with packages built apart
// with cgo, those too, so that binaries of one build with cgo on are
// made again.
func (o BuildOptions) recipe() string {
	r := Recipe(o.flags(), o.Env)
	if len(o.Cgo) > 0 {
		r += "; " + cgoOn + ": " + strings.Join(o.Cgo, " ")
	}
	if len(o.CgoFlags) > 0 {
		r += " " + strings.Join(o.CgoFlags, " ")
	}
	return r
}

func (o *BuildOptions) defaults() error {
	if o.Version == "" {
		return errors.New("BuildOptions.Version is required")
	}
	if len(o.Packages) == 0 {
		o.Packages = DefaultPackages()
	}
	if o.What == "" {
		o.What = "Kubernetes " + o.Version + " binaries"
	}
	if o.ReleaseURL != "" && !o.PlainReleaseURL {
		if err := httpsURL(o.ReleaseURL); err != nil {
			return fmt.Errorf("release URL %s: %w", o.ReleaseURL, err)
		}
	}
	if o.ModuleDir == "" || o.CacheDir == "" {
		var err error
		if o.RepoRoot, o.CacheDir, err = Dirs(o.RepoRoot, o.CacheDir); err != nil {
			return err
		}
	}
	if o.ModuleDir == "" {
		o.ModuleDir = filepath.Join(o.RepoRoot, "tools", "build", "k8sbin")
		if o.Stamp == "" {
			v, err := KubernetesVersion(o.ModuleDir)
			if err != nil {
				return err
			}
			o.Stamp = v
		}
	}
	if o.Stamp != "" && slices.ContainsFunc(o.Flags, func(f string) bool { return strings.HasPrefix(f, "-ldflags") }) {
		return fmt.Errorf("building %s: a version stamp and -ldflags of the build's own: the later -ldflags would drop the other", o.What)
	}
	return nil
}

// flags are go build's flags of the build's own: Flags, and the version
// stamp's linker flags.
func (o BuildOptions) flags() []string {
	if o.Stamp == "" {
		return o.Flags
	}
	return append([]string{LinkWith(VersionLDFlags(o.Stamp))}, o.Flags...)
}

// Package build builds the KEP-6406 prototype: kube-apiserver and
// kube-scheduler from the v1.37.2 module sources plus the anchored edits in
// this package. No Kubernetes file lives in the repository: the sources are
// copied from the Go module cache into a gitignored work folder, patched
// there, and built through a module whose replace directives point at them.
package build

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/internal/bintrust"
	"github.com/draconform/draconform/tools/internal/fsutil"
)

// Base versions the prototype patches. The vanilla etcd and
// kube-controller-manager come from the binaries built for BaseVersion.
const (
	BaseVersion       = "v1.37.2"
	StagingVersion    = "v0.37.2"
	KubernetesVersion = BaseVersion
)

// formatVersion is part of the cache key; bump it when the way the build
// module is written changes in a way the edits do not show.
const formatVersion = "draconform-prototype-build/2"

// Options configures Ensure.
type Options struct {
	// RepoRoot is the draconform checkout; found from the working directory
	// when empty.
	RepoRoot string
	// CacheDir holds the binary caches, one folder per key; the prototype's
	// is <CacheDir>/prototype-<key>/bin. Default <RepoRoot>/.cache/k8s, the
	// embedded provider's cache.
	CacheDir string
	// WorkDir holds the patched sources and the build module, per key.
	// Default <RepoRoot>/.cache/prototype.
	WorkDir string
	// VanillaBinDir holds the released etcd and kube-controller-manager the
	// prototype runs unchanged. Default <CacheDir>/v1.37.2/bin.
	VanillaBinDir string
	// WaitVanilla, when set, waits for a build of VanillaBinDir running
	// beside this one; Ensure calls it before it takes etcd and the
	// controller manager from there.
	WaitVanilla func() error
	// Mutant names a deliberately non-conformant variant (see Mutants) to
	// build instead of the prototype, for proving the suite rejects it. It
	// gives another key.
	Mutant string
	// Static asks for kube-apiserver and kube-scheduler linked without
	// cgo, for images with no libc or dynamic loader (kind's distroless
	// component images). Every build is static now (k8sbuild.CompileEnv),
	// so it names the variant and shares the embedded default's key.
	Static bool
	Log    io.Writer
}

// Binaries are the files of a prototype bin dir.
var Binaries = []string{"etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager"}

// built are the commands the prototype compiles; the others are copied.
var built = []string{"kube-apiserver", "kube-scheduler"}

// EditSet returns the edit groups for o, in the order they are applied. An
// unknown mutant gives the prototype's groups; Ensure and Prepare refuse it.
func EditSet(o Options) []Group {
	m, _ := LookupMutant(o.Mutant)
	groups := []Group{
		apiTypesEdits(),
		conversionsEdits(),
		featuresEdits(),
		strategyEdits(),
		validationEdits(),
		openAPIEdits(),
		schedulerEdits(),
		cacheFixEdits(),
	}
	if o.Mutant == "" {
		return groups
	}
	var out []Group
	for _, g := range groups {
		if g.Name != m.Omit {
			out = append(out, g)
		}
	}
	if len(m.Edits) > 0 {
		out = append(out, Group{Name: "mutant " + m.Name, Edits: m.Edits})
	}
	return out
}

// Key is the short hash naming o's binaries: it changes whenever an edit,
// the set of groups or a base version changes.
func Key(o Options) string {
	return hashEdits(keyParts(), EditSet(o))[:12]
}

// keyParts are what the key hashes besides the edits.
func keyParts() []string {
	return []string{formatVersion, KubernetesVersion, StagingVersion, goModEditsText()}
}

// Version is the provider's name for the binaries.
func Version(o Options) string {
	v := "prototype-" + BaseVersion + "+kep6406"
	if o.Mutant != "" {
		v += "-mutant-" + o.Mutant
	}
	if o.Static {
		v += "-static"
	}
	return v
}

// Stamp is the version the prototype's kube-apiserver and kube-scheduler
// report (--version, /version, and so every report made from them): the
// release they are built from, with the KEP (and a mutant) as build
// metadata, which version parsers accept and which orders as that release.
func Stamp(o Options) string {
	v := BaseVersion + "+kep6406"
	if o.Mutant != "" {
		v += ".mutant-" + o.Mutant
	}
	return v
}

func (o *Options) defaults() error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Mutant != "" {
		if _, err := LookupMutant(o.Mutant); err != nil {
			return err
		}
	}
	o.Log = k8sbuild.NewSyncWriter(o.Log)
	var err error
	if o.RepoRoot, o.CacheDir, err = k8sbuild.Dirs(o.RepoRoot, o.CacheDir); err != nil {
		return err
	}
	if o.WorkDir == "" {
		o.WorkDir = filepath.Join(o.RepoRoot, ".cache", "prototype")
	}
	if o.VanillaBinDir == "" {
		o.VanillaBinDir = filepath.Join(o.CacheDir, BaseVersion, "bin")
	}
	return nil
}

// BinDir is where Ensure puts (or finds) the binaries for o.
func BinDir(o Options) (string, error) {
	if err := o.defaults(); err != nil {
		return "", err
	}
	return filepath.Join(o.CacheDir, "prototype-"+Key(o), "bin"), nil
}

// Ensure returns the prototype's bin dir, building the binaries first when
// they are missing. Builds of one key are serialised through an flock on its
// cache dir, so parallel test processes build once.
func Ensure(ctx context.Context, o Options) (string, error) {
	if err := o.defaults(); err != nil {
		return "", err
	}
	key := Key(o)
	flags := []string{k8sbuild.LinkWith(k8sbuild.VersionLDFlags(Stamp(o)))}
	c := k8sbuild.Cache{KeyDir: filepath.Join(o.CacheDir, "prototype-"+key), Names: Binaries, Recipe: k8sbuild.Recipe(flags, nil), Who: "prototype", Log: o.Log}
	start := time.Now()
	binDir, didBuild, err := c.Ensure(ctx, func(ctx context.Context, scratch string, _ []string) error {
		vanilla := []string{"etcd", "kube-controller-manager"}
		work := filepath.Join(o.WorkDir, key)
		fmt.Fprintf(o.Log, "prototype: key %s (%d edit groups%s); work dir %s\n", key, len(EditSet(o)), map[bool]string{true: ", mutant " + o.Mutant}[o.Mutant != ""], work)
		modDir, err := prepare(ctx, o, work)
		if err != nil {
			return err
		}
		// One go build for both, so that their packages compile side by
		// side and one links while the other still compiles.
		var pkgs []string
		for _, name := range built {
			pkgs = append(pkgs, "k8s.io/kubernetes/cmd/"+name)
		}
		if err := goBuild(ctx, o.Log, modDir, scratch, flags, pkgs...); err != nil {
			return err
		}
		// The vanilla build may run beside this one; its etcd and
		// controller manager are needed only now.
		if o.WaitVanilla != nil {
			if err := o.WaitVanilla(); err != nil {
				return fmt.Errorf("prototype: the vanilla binaries it runs beside: %w", err)
			}
		}
		if m := k8sbuild.Missing(o.VanillaBinDir, vanilla); len(m) > 0 {
			return fmt.Errorf("prototype: vanilla %s missing in %s (build them first: go run ./tools/cmd/draconform binaries)", strings.Join(m, ", "), o.VanillaBinDir)
		}
		for _, name := range vanilla {
			// Checked first: the prototype's folder records the digests
			// of what it links, and would vouch for a changed one.
			if _, err := bintrust.Check(filepath.Join(o.VanillaBinDir, name)); err != nil {
				return fmt.Errorf("prototype: taking vanilla %s: %w", name, err)
			}
			if err := fsutil.LinkOrCopy(filepath.Join(o.VanillaBinDir, name), filepath.Join(scratch, name)); err != nil {
				return fmt.Errorf("prototype: taking vanilla %s: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if didBuild {
		fmt.Fprintf(o.Log, "prototype: binaries ready in %s (%s in all)\n", binDir, time.Since(start).Round(time.Second))
	} else {
		fmt.Fprintf(o.Log, "prototype: using %s\n", binDir)
	}
	return binDir, nil
}

// Prepare copies and patches the sources and writes the build module under
// <WorkDir>/<key>, without building. It returns the build module's dir.
func Prepare(ctx context.Context, o Options) (string, error) {
	if err := o.defaults(); err != nil {
		return "", err
	}
	return prepare(ctx, o, filepath.Join(o.WorkDir, Key(o)))
}

func prepare(ctx context.Context, o Options, work string) (string, error) {
	src := filepath.Join(work, "src")
	if err := os.RemoveAll(src); err != nil {
		return "", fmt.Errorf("prototype: clearing %s: %w", src, err)
	}
	roots := map[Module]string{}
	orig := map[Module]string{}
	for _, m := range []struct {
		mod Module
		ver string
	}{{Kubernetes, KubernetesVersion}, {API, StagingVersion}, {DRA, StagingVersion}} {
		dir, err := moduleDir(ctx, o.RepoRoot, string(m.mod)+"@"+m.ver)
		if err != nil {
			return "", err
		}
		dst := filepath.Join(src, filepath.Base(string(m.mod)))
		fmt.Fprintf(o.Log, "prototype: copying %s@%s into %s\n", m.mod, m.ver, dst)
		if err := copyTree(dir, dst); err != nil {
			return "", fmt.Errorf("prototype: copying %s: %w", dir, err)
		}
		roots[m.mod], orig[m.mod] = dst, dir
	}
	var all []Edit
	for _, g := range EditSet(o) {
		all = append(all, g.Edits...)
	}
	files, err := ApplyEdits(roots, all)
	if err != nil {
		return "", fmt.Errorf("prototype: %w", err)
	}
	fmt.Fprintf(o.Log, "prototype: applied %d edits to %d files\n", len(all), len(files))
	writeDiff(filepath.Join(work, "patch.diff"), files, roots, orig)

	modDir := filepath.Join(work, "module")
	if err := writeModule(o.RepoRoot, modDir); err != nil {
		return "", err
	}
	return modDir, nil
}

// The build module is tools/build/k8sbin's go.mod with the three patched modules
// replaced by the local copies; these edits say how, and are hashed too.
func goModEdits() []Edit {
	return []Edit{
		replace("", "go.mod", "module github.com/draconform/draconform/tools/k8sbin\n", "module github.com/draconform/draconform/prototype-build\n"),
		replace("", "go.mod", "\tk8s.io/api => k8s.io/api v0.37.2\n", "\tk8s.io/api => ../src/api\n"),
		replace("", "go.mod", "\tk8s.io/dynamic-resource-allocation => k8s.io/dynamic-resource-allocation v0.37.2\n",
			"\tk8s.io/dynamic-resource-allocation => ../src/dynamic-resource-allocation\n"),
		after("", "go.mod", "replace (\n", "\tk8s.io/kubernetes => ../src/kubernetes\n"),
	}
}

func goModEditsText() string {
	var b strings.Builder
	for _, e := range goModEdits() {
		fmt.Fprintf(&b, "%s\x00%s\x00%v\x00%s\x00", e.File, e.Anchor, e.Mode, e.Text)
	}
	return b.String()
}

func writeModule(repoRoot, modDir string) error {
	k8sbin := filepath.Join(repoRoot, "tools", "build", "k8sbin")
	goMod, err := os.ReadFile(filepath.Join(k8sbin, "go.mod"))
	if err != nil {
		return fmt.Errorf("prototype: reading the module to mirror: %w", err)
	}
	text := string(goMod)
	for _, e := range goModEdits() {
		if text, err = applyText(text, e); err != nil {
			return fmt.Errorf("prototype: writing the build module from tools/build/k8sbin/go.mod: %w", err)
		}
	}
	goSum, err := os.ReadFile(filepath.Join(k8sbin, "go.sum"))
	if err != nil {
		return fmt.Errorf("prototype: reading tools/build/k8sbin/go.sum: %w", err)
	}
	if err := os.MkdirAll(modDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(modDir, "go.mod"), []byte(text), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(modDir, "go.sum"), goSum, 0o644)
}

// moduleDir locates a module version in the module cache, downloading it
// through the proxy if it is not there, as the pinned module
// tools/build/k8sbin (which requires the Kubernetes modules) asks for it.
func moduleDir(ctx context.Context, repoRoot, modVer string) (string, error) {
	dir, err := k8sbuild.ModuleDir(ctx, filepath.Join(repoRoot, "tools", "build", "k8sbin"), modVer)
	if err != nil {
		return "", fmt.Errorf("prototype: %w", err)
	}
	return dir, nil
}

// copyTree copies a read-only module directory into a writable tree.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return fsutil.CopyFile(path, dst, 0o644|fi.Mode().Perm()&0o111)
	})
}

// writeDiff records the patch as a unified diff for review; best effort.
func writeDiff(path string, files []string, roots, orig map[Module]string) {
	diff, err := exec.LookPath("diff")
	if err != nil {
		return
	}
	var b strings.Builder
	for _, f := range files {
		for m := range roots {
			rel, ok := strings.CutPrefix(f, string(m)+"/")
			if !ok {
				continue
			}
			out, _ := exec.Command(diff, "-u",
				"--label", "a/"+f, filepath.Join(orig[m], filepath.FromSlash(rel)),
				"--label", "b/"+f, filepath.Join(roots[m], filepath.FromSlash(rel))).Output()
			b.Write(out)
		}
	}
	_ = os.WriteFile(path, []byte(b.String()), 0o644)
}

func goBuild(ctx context.Context, log io.Writer, modDir, outDir string, flags []string, pkgs ...string) error {
	env := []string{"GOWORK=off"}
	// -trimpath (k8sbuild.CompileFlags) keeps the work dir (which has the
	// key in it) out of the build cache's action IDs, so that a variant of
	// the patch recompiles only what its edits touch.
	var names []string
	for _, p := range pkgs {
		names = append(names, filepath.Base(p))
	}
	return k8sbuild.GoBuild{ModuleDir: modDir, Env: env, Flags: flags, Packages: pkgs,
		OutDir: outDir, Who: "prototype", What: strings.Join(names, " and "), Log: log}.Run(ctx)
}

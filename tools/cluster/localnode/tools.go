package localnode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/draconform/draconform/drivers/deploy"
	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/host/ociarchive"
	"github.com/draconform/draconform/tools/internal/fsutil"
)

// nodeTools are the node's commands built from this repository.
var nodeTools = []string{"./tools/cmd/draconform-runc", "./tools/cmd/draconform-pause", "./drivers/cmd/draconform-driver"}

// prepareNodeTools puts nodeTools in b.ToolsDir and the images made of
// them at b.PauseArchive and b.DriverArchive. Both are made in a folder of
// the cache kept across runs and linked into the run's: there go build
// finds the tools up to date and skips linking them, and an image whose
// binary did not change is not written again (together 6 s of every run
// on 2 cores, before any cell could start; 0.5 s so). go build replaces a
// binary it relinks with a new file, and images are renamed into place,
// so a run's folder keeps its own whatever later runs build. The lock
// keeps two processes from building into one cache folder at once.
func prepareNodeTools(ctx context.Context, o BuildOptions, b Binaries, flags []string) error {
	_, cacheDir, err := k8sbuild.Dirs(o.RepoRoot, o.CacheDir)
	if err != nil {
		return err
	}
	variant := "driver"
	if o.DriverMutant != "" {
		variant = "driver-mutant-" + o.DriverMutant
	}
	built := filepath.Join(cacheDir, "node-tools", variant)
	images := filepath.Join(built, "images")
	if err := os.MkdirAll(images, 0o755); err != nil {
		return fmt.Errorf("the node tools' cache folder: %w", err)
	}
	unlock, err := k8sbuild.Lock(ctx, built+".lock", o.Log, "local")
	if err != nil {
		return err
	}
	defer unlock()
	if err := goBuild(ctx, o.RepoRoot, built, flags, o.Log, nodeTools...); err != nil {
		return err
	}
	if err := os.MkdirAll(b.ToolsDir, 0o755); err != nil {
		return fmt.Errorf("the node tools' folder: %w", err)
	}
	for _, pkg := range nodeTools {
		name := k8sbuild.BinaryName(pkg)
		if err := fsutil.LinkOrCopy(filepath.Join(built, name), filepath.Join(b.ToolsDir, name)); err != nil {
			return fmt.Errorf("the node tool %s: %w", name, err)
		}
	}
	keep := map[string]bool{}
	for _, im := range []struct {
		archive string
		img     ociarchive.Image
	}{
		{b.PauseArchive, ociarchive.Image{Ref: PauseImage, Files: map[string]string{"/pause": filepath.Join(built, "draconform-pause")}, Entrypoint: []string{"/pause"}}},
		{b.DriverArchive, ociarchive.Image{Ref: deploy.DefaultImage, Files: map[string]string{"/draconform-driver": filepath.Join(built, "draconform-driver")}, Entrypoint: []string{"/draconform-driver"}}},
	} {
		cached, err := cachedImage(images, im.img)
		if err != nil {
			return err
		}
		keep[filepath.Base(cached)] = true
		if err := fsutil.LinkOrCopy(cached, im.archive); err != nil {
			return fmt.Errorf("the image %s: %w", im.img.Ref, err)
		}
	}
	pruneImages(images, keep)
	return nil
}

// cachedImage returns the archive of img in dir, writing it when no
// archive of the same content is there.
func cachedImage(dir string, img ociarchive.Image) (string, error) {
	key, err := imageKey(img)
	if err != nil {
		return "", fmt.Errorf("the image %s: %w", img.Ref, err)
	}
	cached := filepath.Join(dir, key+".tar")
	if _, err := os.Stat(cached); err == nil {
		return cached, nil
	}
	tmp := cached + ".tmp"
	if err := ociarchive.Write(tmp, img); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, cached); err != nil {
		return "", fmt.Errorf("the image %s: %w", img.Ref, err)
	}
	return cached, nil
}

// imageKey hashes what an image archive is made of: its name, command,
// environment and the contents of its files.
func imageKey(img ociarchive.Image) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "ref %q\nentrypoint %q\nenv %q\n", img.Ref, img.Entrypoint, img.Env)
	paths := make([]string, 0, len(img.Files))
	for p := range img.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		f, err := os.Open(img.Files[p])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "file %q\n", p)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// pruneImages removes the archives of dir that are not in keep: those of
// binaries since rebuilt, 30 MB each.
func pruneImages(dir string, keep map[string]bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !keep[e.Name()] && strings.HasSuffix(e.Name(), ".tar") {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

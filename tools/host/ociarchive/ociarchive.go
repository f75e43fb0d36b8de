// Package ociarchive writes single-layer container images as archives that
// `ctr images import` (and `docker load`) accept, from files on disk. The
// embedded node has no registry to pull from and no Docker to build with, so
// its images (the sandbox's pause, the test driver) are made here from
// binaries the suite builds itself.
package ociarchive

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Image is what goes into one archive.
type Image struct {
	// Ref names the image, e.g. "draconform.dev/testdriver:dev"; pods refer
	// to it by this name.
	Ref string
	// Files maps an absolute path in the image to a file on disk; each is
	// copied with mode 0755, since all of them are programs.
	Files map[string]string
	// Entrypoint is the image's default command; Cmd its default
	// arguments, or the command itself when Entrypoint is empty.
	Entrypoint, Cmd []string
	// User is who the image's processes run as unless a pod says
	// otherwise; empty: root.
	User string
	// Env is the image's environment; default PATH=/. A program that is
	// run by name (kubeadm's static pods say `kube-apiserver`) needs its
	// directory on PATH.
	Env []string
}

// Write builds img and writes it to archivePath. The layer's timestamps are
// fixed, so the same binaries give the same image digest.
func Write(archivePath string, img Image) error {
	ref, err := name.ParseReference(img.Ref)
	if err != nil {
		return fmt.Errorf("image name %q: %w", img.Ref, err)
	}
	layerTar, err := layer(img.Files)
	if err != nil {
		return fmt.Errorf("image %s: %w", img.Ref, err)
	}
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return fmt.Errorf("image %s: layer: %w", img.Ref, err)
	}
	image, err := mutate.AppendLayers(empty.Image, l)
	if err != nil {
		return fmt.Errorf("image %s: %w", img.Ref, err)
	}
	cfg, err := image.ConfigFile()
	if err != nil {
		return fmt.Errorf("image %s: config: %w", img.Ref, err)
	}
	cfg = cfg.DeepCopy()
	// The node runs what this machine runs; the binaries were built for it.
	cfg.OS, cfg.Architecture = "linux", runtime.GOARCH
	cfg.Config.Entrypoint, cfg.Config.Cmd, cfg.Config.User = img.Entrypoint, img.Cmd, img.User
	cfg.Config.Env = img.Env
	if len(cfg.Config.Env) == 0 {
		cfg.Config.Env = []string{"PATH=/"}
	}
	if image, err = mutate.ConfigFile(image, cfg); err != nil {
		return fmt.Errorf("image %s: %w", img.Ref, err)
	}
	if image, err = mutate.CreatedAt(image, v1.Time{Time: epoch}); err != nil {
		return fmt.Errorf("image %s: %w", img.Ref, err)
	}
	if err := tarball.WriteToFile(archivePath, ref, image); err != nil {
		return fmt.Errorf("writing image %s to %s: %w", img.Ref, archivePath, err)
	}
	return nil
}

var epoch = time.Unix(0, 0).UTC()

// layer is an uncompressed tar of files, with their parent directories.
func layer(files map[string]string) ([]byte, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no files")
	}
	targets := make([]string, 0, len(files))
	for p := range files {
		if !path.IsAbs(p) || path.Clean(p) != p {
			return nil, fmt.Errorf("path %q in the image must be absolute and clean", p)
		}
		targets = append(targets, p)
	}
	sort.Strings(targets)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, target := range targets {
		for _, dir := range parents(target) {
			if dirs[dir] {
				continue
			}
			dirs[dir] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: epoch}); err != nil {
				return nil, err
			}
		}
		data, err := os.ReadFile(files[target])
		if err != nil {
			return nil, fmt.Errorf("reading %s for %s: %w", files[target], target, err)
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(target, "/"), Mode: 0o755, Size: int64(len(data)), ModTime: epoch}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// parents lists the directories above p, outermost first, without "/".
func parents(p string) []string {
	var out []string
	for dir := path.Dir(p); dir != "/"; dir = path.Dir(dir) {
		out = append([]string{strings.TrimPrefix(dir, "/")}, out...)
	}
	return out
}

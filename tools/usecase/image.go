package usecase

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/certify/sonobuoy"
	"github.com/draconform/draconform/tools/cluster/testdriver"
	"github.com/draconform/draconform/tools/host/ociarchive"
	"github.com/draconform/draconform/tools/lang/loader"
)

// The images draconform image writes.
const (
	// ImageDraconform is draconform itself, for in-cluster runs (Sonobuoy,
	// a Job).
	ImageDraconform = "draconform"
	// ImageSonobuoy is Sonobuoy's aggregator and worker image, made from
	// the Sonobuoy draconform clis builds: no registry serves
	// sonobuoy/sonobuoy here.
	ImageSonobuoy = "sonobuoy"
	// ImageWorkload is the image the example driver's profile runs its
	// pods from (testdriver.Image).
	ImageWorkload = "workload"
)

// ImageKinds are the images draconform image writes, the default first.
func ImageKinds() []string { return []string{ImageDraconform, ImageSonobuoy, ImageWorkload} }

// SonobuoyImageRepository names the Sonobuoy image draconform makes: not
// sonobuoy/sonobuoy, the project's published one, which this is not.
const SonobuoyImageRepository = "draconform.dev/sonobuoy"

// ImageRequest writes one of ImageKinds as an image archive, without
// Docker, from binaries built here.
type ImageRequest struct {
	// Of is the image (ImageKinds); empty: ImageDraconform.
	Of string
	// Out is where the archive goes; empty: _output/<Of>-image.tar.
	Out string
	// Ref names the image; empty: DefaultImageRef.
	Ref string
	// Version is draconform's, which names a release's own image.
	Version string
	// DigestName names the image by digest in the archive as well
	// (ociarchive.NameByDigest), so that a pod that names it so runs it
	// on a node that imported the archive instead of asking a registry.
	DigestName bool
}

// ImageResult is the archive written and what names its image.
type ImageResult struct {
	Path, Ref string
	// DigestRef is repository@sha256:<digest>, the image's digest on a
	// node that imported the archive (ociarchive.ManifestDigest).
	DigestRef string
}

// ImageRef is the name draconform image gives a build of version v: a
// release's is the one its Sonobuoy plugin names (sonobuoy.PinImage); any
// other build's is the moving dev tag, which the plugin names by digest.
func ImageRef(v string) string {
	if img, err := sonobuoy.PinImage("", v); err == nil {
		return img.Ref
	}
	return sonobuoy.Repository + ":dev"
}

// Image writes the archive and returns its absolute path and names.
func Image(ctx context.Context, r ImageRequest, s Streams) (ImageResult, error) {
	if r.Of == "" {
		r.Of = ImageDraconform
	}
	if !slices.Contains(ImageKinds(), r.Of) {
		msg := fmt.Sprintf("--of %s: no image of that name", r.Of)
		if hint := loader.DidYouMean(r.Of, ImageKinds()); hint != "" {
			msg += " (" + hint + ")"
		}
		return ImageResult{}, refuse("%s; draconform image writes %s", msg, strings.Join(ImageKinds(), ", "))
	}
	if r.Of == ImageWorkload && r.Ref != "" && r.Ref != testdriver.Image {
		return ImageResult{}, refuse("--ref %s: the workload image is named as the driver profiles name it, %s", r.Ref, testdriver.Image)
	}
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		return ImageResult{}, err
	}
	if r.Ref == "" {
		if r.Ref, err = DefaultImageRef(root, r.Of, r.Version); err != nil {
			return ImageResult{}, err
		}
	}
	if r.Out == "" {
		r.Out = filepath.Join("_output", r.Of+"-image.tar")
	}
	return writeImage(ctx, root, r, s)
}

// DefaultImageRef is the name of the image of kind of in the repository
// at root; version is draconform's.
func DefaultImageRef(root, of, version string) (string, error) {
	switch of {
	case ImageSonobuoy:
		c, err := ResolveCLI(root, "sonobuoy")
		if err != nil {
			return "", err
		}
		return SonobuoyImageRepository + ":" + c.Version, nil
	case ImageWorkload:
		return testdriver.Image, nil
	}
	return ImageRef(version), nil
}

// writeImage builds in a folder beside the archive, so that the archive
// is renamed into place whole.
func writeImage(ctx context.Context, root string, r ImageRequest, s Streams) (ImageResult, error) {
	path, err := filepath.Abs(r.Out)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err != nil {
		return ImageResult{}, fmt.Errorf("draconform image: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".image-")
	if err != nil {
		return ImageResult{}, fmt.Errorf("draconform image: %w", err)
	}
	defer os.RemoveAll(tmp)
	archive, err := archiveOf(ctx, root, tmp, r, s)
	if err != nil {
		return ImageResult{}, err
	}
	res := ImageResult{Path: path, Ref: r.Ref}
	if r.DigestName {
		res.DigestRef, err = ociarchive.NameByDigest(archive)
	} else {
		res.DigestRef, err = digestRef(archive, r.Ref)
	}
	if err == nil {
		err = os.Rename(archive, path)
	}
	return res, err
}

// digestRef is ref's repository at the archive's digest.
func digestRef(archive, ref string) (string, error) {
	digest, err := ociarchive.ManifestDigest(archive)
	if err != nil {
		return "", err
	}
	return ociarchive.AtDigest(ref, digest)
}

package usecase

import (
	"context"
	"os"
	"path/filepath"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/certify/sonobuoy"
	"github.com/draconform/draconform/tools/host/ociarchive"
)

// ImageRequest writes draconform's own container image as an OCI archive
// (Out), without Docker: the static binary (suites and fixtures are
// embedded in it) on an empty base, for in-cluster runs (Sonobuoy, a Job).
type ImageRequest struct {
	Out, Ref string
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

// Image writes the archive and returns its absolute path.
func Image(ctx context.Context, r ImageRequest, s Streams) (string, error) {
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "draconform-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	// Static (k8sbuild.CompileEnv), so that it runs on an empty base.
	err = k8sbuild.GoBuild{ModuleDir: root,
		Packages: []string{"./tools/cmd/draconform"}, OutDir: tmp, Who: "image", Quiet: true, Log: s.Out}.Run(ctx)
	if err != nil {
		return "", err
	}
	path, err := filepath.Abs(r.Out)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		err = ociarchive.Write(path, ociarchive.Image{Ref: r.Ref, Files: map[string]string{"/draconform": filepath.Join(tmp, "draconform")},
			Entrypoint: []string{"/draconform"}})
	}
	return path, err
}

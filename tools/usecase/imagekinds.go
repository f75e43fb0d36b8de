package usecase

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster/testdriver"
	"github.com/draconform/draconform/tools/host/ociarchive"
	"github.com/draconform/draconform/tools/internal/bintrust"
)

// archiveOf writes the image r.Of names into dir and returns the
// archive's path.
func archiveOf(ctx context.Context, root, dir string, r ImageRequest, s Streams) (string, error) {
	switch r.Of {
	case ImageSonobuoy:
		return sonobuoyArchive(ctx, root, dir, r.Ref, s)
	case ImageWorkload:
		archive, took, err := testdriver.BuildImage(ctx, root, dir, "")
		if err == nil {
			fmt.Fprintf(s.Err, "draconform image: built the test driver in %s\n", took.Round(time.Second))
		}
		return archive, err
	}
	return draconformArchive(ctx, root, dir, r.Ref, s)
}

// draconformArchive is draconform's static binary (its suites and
// fixtures embedded) on an empty base.
func draconformArchive(ctx context.Context, root, dir, ref string, s Streams) (string, error) {
	// Static (k8sbuild.CompileEnv), so that it runs on an empty base.
	err := k8sbuild.GoBuild{ModuleDir: root,
		Packages: []string{"./tools/cmd/draconform"}, OutDir: dir, Who: "image", Quiet: true, Log: s.Err}.Run(ctx)
	if err != nil {
		return "", err
	}
	archive := filepath.Join(dir, "draconform-image.tar")
	return archive, ociarchive.Write(archive, ociarchive.Image{Ref: ref, Files: map[string]string{"/draconform": filepath.Join(dir, "draconform")},
		Entrypoint: []string{"/draconform"}})
}

// sonobuoyArchive is Sonobuoy's image, from the binary draconform clis
// sonobuoy builds.
func sonobuoyArchive(ctx context.Context, root, dir, ref string, s Streams) (string, error) {
	c, err := ResolveCLI(root, "sonobuoy")
	if err != nil {
		return "", err
	}
	binDir, err := k8sbuild.EnsureBinaries(ctx, c.buildOptions(root, s))
	if err != nil {
		return "", fmt.Errorf("building sonobuoy %s: %w", c.Version, err)
	}
	// The image carries the binary into a cluster: the one whose digest
	// the cache recorded, or none.
	bin, err := bintrust.Check(filepath.Join(binDir, "sonobuoy"))
	if err != nil {
		return "", err
	}
	archive := filepath.Join(dir, "sonobuoy-image.tar")
	return archive, ociarchive.Write(archive, sonobuoyImage(ref, bin))
}

// sonobuoyImage is Sonobuoy's image as its own build makes it (its
// Dockerfile, on distroless/static:nonroot): the binary at /sonobuoy,
// which the aggregator pod (pkg/client/gen.go), the worker sidecars
// (pkg/plugin/driver/job and daemonset) and retrieve's exec (sonobuoy
// splat) all run by that path; the aggregator as the default command; and
// distroless's nonroot user where a pod names none.
func sonobuoyImage(ref, bin string) ociarchive.Image {
	return ociarchive.Image{Ref: ref, Files: map[string]string{"/sonobuoy": bin},
		Cmd: []string{"/sonobuoy", "aggregator", "--no-exit", "-v", "3", "--logtostderr"}, User: "65532"}
}

package testdriver

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/host/ociarchive"
)

// Image is the reference the driver's manifests run (drivers/deploy's
// DefaultImage; a test keeps the two equal without this package importing
// the driver's code).
const Image = "draconform.dev/testdriver:dev"

// BuildImage builds the driver statically and writes it as an image archive
// that containerd imports (`ctr images import`, kind's LoadImageArchive):
// no registry and no Dockerfile base image are needed, so it works offline.
// ldflags selects a driver mutant (drivers/mutant); empty for the real one.
func BuildImage(ctx context.Context, repoRoot, outDir, ldflags string) (string, time.Duration, error) {
	began := time.Now()
	bin := filepath.Join(outDir, "draconform-driver")
	// By k8sbuild's recipe, as the embedded node's driver is, so that the
	// packages it shares with draconform are compiled once.
	err := k8sbuild.GoBuild{ModuleDir: repoRoot, Flags: []string{k8sbuild.LinkWith(ldflags)}, Packages: []string{"./drivers/cmd/draconform-driver"},
		OutDir: outDir, Who: "testdriver", What: "the test driver", Quiet: true}.Run(ctx)
	if err != nil {
		return "", 0, fmt.Errorf("building the test driver: %w", err)
	}
	archive := filepath.Join(outDir, "testdriver-image.tar")
	img := ociarchive.Image{Ref: Image, Files: map[string]string{"/draconform-driver": bin}, Entrypoint: []string{"/draconform-driver"}}
	if err := ociarchive.Write(archive, img); err != nil {
		return "", 0, err
	}
	return archive, time.Since(began), nil
}

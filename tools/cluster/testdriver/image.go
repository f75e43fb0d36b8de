package testdriver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/k8sbuild"
	"github.com/draconform/draconform/tools/ociarchive"
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
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", 0, fmt.Errorf("creating %s: %w", outDir, err)
	}
	// Compiled as the embedded node's driver is (k8sbuild.CompileFlags), so
	// that the packages it shares with draconform are compiled once.
	args := append(append([]string{"build"}, k8sbuild.CompileFlags...), "-ldflags="+strings.TrimSpace(k8sbuild.LinkFlags+" "+ldflags), "-o", bin)
	cmd := exec.CommandContext(ctx, "go", append(args, "./drivers/cmd/draconform-driver")...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), k8sbuild.CompileEnv)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", 0, fmt.Errorf("building the test driver: %w\n%s", err, out)
	}
	archive := filepath.Join(outDir, "testdriver-image.tar")
	img := ociarchive.Image{Ref: Image, Files: map[string]string{"/draconform-driver": bin}, Entrypoint: []string{"/draconform-driver"}}
	if err := ociarchive.Write(archive, img); err != nil {
		return "", 0, err
	}
	return archive, time.Since(began), nil
}

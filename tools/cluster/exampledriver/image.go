package exampledriver

import (
	"fmt"
	"path/filepath"

	"github.com/draconform/draconform/tools/host/ociarchive"
	"github.com/draconform/draconform/tools/internal/bintrust"
)

// ImageRepository names the image draconform builds of the plugin. Not the
// driver's own registry.k8s.io/dra-example-driver/dra-example-driver: that
// name belongs to the image the project publishes, and this one is built
// here from the same module version, without its base image.
const ImageRepository = "draconform.dev/dra-example-driver"

// Image is the reference of version's image.
func Image(version string) string { return ImageRepository + ":" + version }

// pluginPath is where the driver's own image keeps the plugin
// (deployments/container/Dockerfile); the chart runs it by name.
const pluginPath = "/usr/bin/dra-example-kubeletplugin"

// WriteImage writes the plugin as an image archive in outDir that the
// node's containerd imports, and returns its path.
func WriteImage(b Binaries, outDir string) (string, error) {
	archive := filepath.Join(outDir, "dra-example-driver-image.tar")
	// The plugin runs privileged on the node: checked first, as every
	// binary of the build cache is before it runs.
	plugin, err := bintrust.Check(b.Plugin)
	if err != nil {
		return "", fmt.Errorf("the example driver's image: %w", err)
	}
	img := ociarchive.Image{
		Ref:   Image(b.Version),
		Files: map[string]string{pluginPath: plugin},
		// The chart's command is the bare name, found on PATH.
		Env: []string{"PATH=/usr/bin"},
	}
	if err := ociarchive.Write(archive, img); err != nil {
		return "", fmt.Errorf("the example driver's image: %w", err)
	}
	return archive, nil
}

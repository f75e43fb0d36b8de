package exampledriver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/tools/cluster/testdriver"
	"github.com/draconform/draconform/tools/internal/bintrust"
)

const (
	// Release and Namespace are what the driver's README installs it as
	// (helm install --namespace=dra-example-driver --create-namespace
	// dra-example-driver): its objects are named after the release.
	Release   = "dra-example-driver"
	Namespace = "dra-example-driver"
	// Driver is the driver name of the chart's GPU profile, and the name
	// of the DeviceClass it creates.
	Driver = "gpu.example.com"
	// Devices is how many GPUs the plugin publishes on the node (the
	// chart's numDevices; its default is 8): two are enough for two pods
	// on one and a third elsewhere, and keep the slice small.
	Devices = 2
)

// Settings are what of the chart's values draconform chooses for one node.
type Settings struct {
	Node    Node
	Version string
	// HealthPort and MetricsPort are free ports of the node's network,
	// which the plugin listens on there (see onTheEmbeddedNode); the
	// chart's 51515 and 8080 could be taken on a shared machine.
	HealthPort, MetricsPort int
}

// Values are the chart values the node is given: only settings the chart
// offers. What the chart cannot express is done by onTheEmbeddedNode.
func Values(s Settings) map[string]any {
	return map[string]any{
		"image": map[string]any{"repository": ImageRepository, "tag": s.Version},
		// Shareable GPUs whose memory and compute have request policies:
		// the devices KEP-6406's capacity requests are for.
		"gpuAllowMultipleAllocations": true,
		"kubeletPlugin": map[string]any{
			"numDevices": Devices,
			// The suite's Node objects have no kubelet to run a pod.
			"nodeSelector": map[string]any{"kubernetes.io/hostname": s.Node.Name},
			// The node's kubelet has its own root directory; the plugin
			// registers its socket paths, which must mean the same in the
			// container and on the node, so the chart mounts each at its
			// own path.
			"kubeletRegistrarDirectoryPath": path.Join(s.Node.KubeletDir, "plugins_registry"),
			"kubeletPluginsDirectoryPath":   path.Join(s.Node.KubeletDir, "plugins"),
			"containers": map[string]any{"plugin": map[string]any{
				"healthcheckPort": s.HealthPort,
				"metricsPort":     s.MetricsPort,
			}},
		},
	}
}

// Cluster is what the chart's .Capabilities say of the cluster, as helm
// install reads them from it.
type Cluster struct {
	KubeVersion string
	APIVersions []string
}

// Render renders the chart with values as helm template does, through the
// chart renderer built in the pinned module, and decodes the manifests.
// workDir receives the values and the rendered manifests, for the reader.
func Render(ctx context.Context, b Binaries, values map[string]any, c Cluster, workDir string) ([]*unstructured.Unstructured, error) {
	data, err := json.MarshalIndent(values, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the chart's values: %w", err)
	}
	valuesFile := filepath.Join(workDir, "values.json")
	if err := os.WriteFile(valuesFile, data, 0o644); err != nil {
		return nil, fmt.Errorf("writing the chart's values: %w", err)
	}
	args := []string{"--chart", b.ChartDir, "--release", Release, "--namespace", Namespace, "--values", valuesFile}
	if c.KubeVersion != "" {
		args = append(args, "--kube-version", c.KubeVersion)
	}
	if len(c.APIVersions) > 0 {
		args = append(args, "--api-versions", strings.Join(c.APIVersions, ","))
	}
	cmd, err := bintrust.Command(ctx, b.Chart, args...)
	if err != nil {
		return nil, fmt.Errorf("rendering the example driver's chart: %w", err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("rendering the example driver's chart %s: %w: %s", b.ChartDir, err, strings.TrimSpace(stderr.String()))
	}
	if err := os.WriteFile(filepath.Join(workDir, "chart.yaml"), out, 0o644); err != nil {
		return nil, fmt.Errorf("writing the rendered chart: %w", err)
	}
	objs, err := testdriver.DecodeManifests(out)
	if err != nil {
		return nil, fmt.Errorf("the example driver's rendered chart: %w", err)
	}
	return objs, nil
}

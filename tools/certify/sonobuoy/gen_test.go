package sonobuoy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Sonobuoy's own gen, where a sonobuoy CLI is on PATH (draconform clis
// sonobuoy builds the pinned one), turns the definition's config-map into
// a ConfigMap of its namespace and mounts it in draconform's container at
// ConfigDir, where the arguments name its files.
func TestSonobuoyGenMountsTheConfigMapAtConfigDir(t *testing.T) {
	cli, err := exec.LookPath("sonobuoy")
	if err != nil {
		t.Skip("no sonobuoy on PATH (draconform clis sonobuoy builds it)")
	}
	def, err := Definition(Plugin{Image: Image{Ref: "r/d:v1.0.0", PullPolicy: corev1.PullAlways}, Args: []string{"certify", "--product", ConfigPath("product.yaml")},
		Files: map[string]string{"product.yaml": "kind: Product\n"}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "plugin.yaml")
	_ = os.WriteFile(file, def, 0o644)
	cmd := exec.Command(cli, "gen", "--plugin", file, "--kubernetes-version", "v1.37.2")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(t.TempDir(), "none"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sonobuoy gen: %v", err)
	}
	var cm corev1.ConfigMap
	var mounted bool
	for _, doc := range strings.Split(string(out), "\n---\n") {
		var obj struct {
			Kind     string            `json:"kind"`
			Metadata map[string]any    `json:"metadata"`
			Data     map[string]string `json:"data"`
		}
		if yaml.Unmarshal([]byte(doc), &obj) != nil || obj.Kind != "ConfigMap" {
			continue
		}
		switch obj.Metadata["name"] {
		case "plugin-" + PluginName + "-cm":
			cm.Data = obj.Data
		case "sonobuoy-plugins-cm":
			mounted = mountsConfigMap(t, obj.Data["plugin-0.yaml"])
		}
	}
	if cm.Data["product.yaml"] != "kind: Product\n" {
		t.Errorf("sonobuoy gen made no ConfigMap plugin-%s-cm of the files: %v\n%s", PluginName, cm.Data, out)
	}
	if !mounted {
		t.Errorf("sonobuoy gen does not mount the files at %s:\n%s", ConfigDir, out)
	}
}

// mountsConfigMap says whether the plugin, as Sonobuoy's aggregator reads
// it, mounts the ConfigMap of its files at ConfigDir.
func mountsConfigMap(t *testing.T, plugin string) bool {
	t.Helper()
	var p struct {
		Spec         corev1.Container `json:"spec"`
		ExtraVolumes []corev1.Volume  `json:"extra-volumes"`
	}
	if err := yaml.Unmarshal([]byte(plugin), &p); err != nil {
		t.Fatalf("%v in\n%s", err, plugin)
	}
	for _, m := range p.Spec.VolumeMounts {
		for _, v := range p.ExtraVolumes {
			if m.MountPath == ConfigDir && m.Name == v.Name && v.ConfigMap != nil && v.ConfigMap.Name == "plugin-"+PluginName+"-cm" {
				return true
			}
		}
	}
	return false
}

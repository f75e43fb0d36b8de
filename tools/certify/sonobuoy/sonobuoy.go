// Package sonobuoy lets draconform run as a Sonobuoy plugin: the plugin
// definition Sonobuoy reads, and the results contract its worker sidecar
// follows (vmware-tanzu/sonobuoy, pkg/worker/worker.go): results go into
// the results directory ($SONOBUOY_RESULTS_DIR, default
// /tmp/sonobuoy/results), and then a file named done in it holds the path
// of what to send, a file or a directory the worker archives (gzipped
// tar; the aggregator unpacks it into plugins/<plugin>/results/global of
// the results `sonobuoy retrieve` fetches). With result-format junit,
// Sonobuoy reads as JUnit reports the files result-files names, at any
// depth of those results.
package sonobuoy

import (
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// Plugin is what the plugin definition says.
type Plugin struct {
	// Image is PinImage's: a digest, or a tag the kubelet pulls each time.
	Image Image
	// Args are draconform's, after the binary.
	Args []string
	// ServiceAccount is the plugin pod's, in Sonobuoy's namespace: the one
	// draconform rbac's manifest is for (ServiceAccount), never Sonobuoy's
	// own, which holds cluster-admin.
	ServiceAccount string
	// Files are the plugin's config-map, by name: Sonobuoy makes it a
	// ConfigMap in its namespace and mounts it in the container at
	// ConfigDir (ConfigPath names a file there). It goes with the
	// namespace at sonobuoy delete.
	Files map[string]string
}

// ConfigDir is where Sonobuoy mounts a plugin's config-map in its
// container (vmware-tanzu/sonobuoy, pkg/client/gen.go: a volume of the
// ConfigMap plugin-<plugin>-cm it generates from config-map, mounted at
// /tmp/sonobuoy/config).
const ConfigDir = "/tmp/sonobuoy/config"

// ConfigPath is where the container reads the config-map's file name.
func ConfigPath(name string) string { return ConfigDir + "/" + name }

// configKey is what a ConfigMap's key may be (k8s.io/apimachinery's
// IsConfigMapKey, without its length cap).
var configKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// DefaultServiceAccount names the plugin's service account.
const DefaultServiceAccount = "draconform"

// DefaultNamespace is where Sonobuoy runs its plugins (its --namespace).
const DefaultNamespace = "sonobuoy"

// Definition is the plugin definition `sonobuoy run --plugin` (or
// `sonobuoy gen --plugin`) reads: a Job whose container runs draconform and
// reports JUnit. Its podSpec names the plugin's own service account, which
// draconform then uses in-cluster. Sonobuoy takes the podSpec as it is and
// appends its worker container and its results volume
// (vmware-tanzu/sonobuoy, pkg/plugin/driver/job/job.go,
// createPodDefinition): the pod's seccomp profile applies to the worker
// too; the rest of the security context is draconform's container's.
func Definition(p Plugin) ([]byte, error) {
	if p.Image.Ref == "" || p.Image.PullPolicy == "" {
		return nil, fmt.Errorf("the plugin's image is not pinned (PinImage)")
	}
	if p.ServiceAccount == "" {
		p.ServiceAccount = DefaultServiceAccount
	}
	for name := range p.Files {
		if !configKey.MatchString(name) || name == "." || name == ".." {
			return nil, fmt.Errorf("the plugin's file %q is no ConfigMap key (letters, digits, '-', '_', '.')", name)
		}
	}
	def := manifest{
		Config: config{
			Driver:       "Job",
			PluginName:   PluginName,
			ResultFormat: "junit",
			ResultFiles:  []string{JUnitFile},
			Description:  "KEP-6406 (DRA extended resource capacity) conformance by draconform",
		},
		ConfigMap: p.Files,
		Spec:      container(p),
		PodSpec: corev1.PodSpec{
			Containers:         []corev1.Container{},
			RestartPolicy:      corev1.RestartPolicyNever,
			ServiceAccountName: p.ServiceAccount,
			SecurityContext:    &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Volumes:            []corev1.Volume{{Name: scratchVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		},
	}
	return yaml.Marshal(def)
}

// PluginName is the plugin's name in Sonobuoy: its results are under
// plugins/draconform in the tarball sonobuoy retrieve fetches.
const PluginName = "draconform"

// manifest is Sonobuoy's plugin manifest (pkg/plugin/manifest).
type manifest struct {
	Config    config            `json:"sonobuoy-config"`
	Spec      corev1.Container  `json:"spec"`
	PodSpec   corev1.PodSpec    `json:"podSpec"`
	ConfigMap map[string]string `json:"config-map,omitempty"`
}

// config is the manifest's sonobuoy-config. ResultFiles names the JUnit
// report Sonobuoy counts, by its name at any depth of the results: a
// certify run's bundle holds it (see PublishBundle), and no other XML
// file a run hands over is counted.
type config struct {
	Driver       string   `json:"driver"`
	PluginName   string   `json:"plugin-name"`
	ResultFormat string   `json:"result-format"`
	ResultFiles  []string `json:"result-files"`
	Description  string   `json:"description"`
}

// RunAsUser is the plugin's user: not root, and no user of the node's
// (65532, distroless's nonroot).
const RunAsUser = 65532

// scratchVolume is the plugin's writable /tmp: its root file system is
// read-only, and a run writes its reports (--out /tmp/draconform) and its
// private folders (privdir, in the temporary folder) there.
const scratchVolume = "scratch"

// container is draconform's container: it asks for nothing of the node's
// (restricted Pod Security, as the pods of a run are), and writes only
// the scratch and results volumes.
func container(p Plugin) corev1.Container {
	return corev1.Container{
		Name:            "plugin",
		Image:           p.Image.Ref,
		ImagePullPolicy: p.Image.PullPolicy,
		Command:         []string{"/draconform"},
		Args:            p.Args,
		Env:             []corev1.EnvVar{{Name: "HOME", Value: "/tmp"}},
		VolumeMounts: []corev1.VolumeMount{
			{Name: scratchVolume, MountPath: "/tmp"},
			{Name: "results", MountPath: DefaultResultsDir},
		},
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot:             ptr.To(true),
			RunAsUser:                ptr.To[int64](RunAsUser),
			RunAsGroup:               ptr.To[int64](RunAsUser),
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			ReadOnlyRootFilesystem:   ptr.To(true),
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
}

// Package sonobuoy lets draconform run as a Sonobuoy plugin: the plugin
// definition Sonobuoy reads, and the results contract its worker sidecar
// follows (vmware-tanzu/sonobuoy, pkg/worker/worker.go): results go into
// the results directory ($SONOBUOY_RESULTS_DIR, default
// /tmp/sonobuoy/results), and then a file named done in it holds the path
// of what to send, a file or a directory the worker archives. With
// result-format junit, Sonobuoy reads the XML files as JUnit reports.
package sonobuoy

import (
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/tools/internal/fsutil"
	"github.com/draconform/draconform/tools/report"
)

// DefaultResultsDir is where Sonobuoy mounts a plugin's results.
const DefaultResultsDir = "/tmp/sonobuoy/results"

// ResultsDir is the results directory of this plugin container.
func ResultsDir() string {
	if d := os.Getenv("SONOBUOY_RESULTS_DIR"); d != "" {
		return d
	}
	return DefaultResultsDir
}

// Published are the files of a run a plugin hands to Sonobuoy: the JUnit
// report first (under the name Sonobuoy's JUnit processing picks up), then
// what a reader of the results wants beside it.
var Published = map[string]string{
	report.JUnitFile:    "junit_01.xml",
	report.MatrixFile:   report.MatrixFile,
	report.HTMLFile:     report.HTMLFile,
	report.OutcomesFile: report.OutcomesFile,
	report.VerdictsFile: report.VerdictsFile,
	report.FactsFile:    report.FactsFile,
}

// Publish copies a run's reports from runDir into resultsDir and then
// writes the done file naming resultsDir, last, since the worker sends
// what the done file names as soon as it appears.
func Publish(runDir, resultsDir string) error {
	if err := fsutil.OutputDir(resultsDir); err != nil {
		return fmt.Errorf("sonobuoy results: %w", err)
	}
	if _, err := os.Stat(filepath.Join(runDir, report.JUnitFile)); err != nil {
		return fmt.Errorf("sonobuoy results: the run wrote no JUnit report: %w", err)
	}
	for from, to := range Published {
		if err := fsutil.CopyNew(filepath.Join(runDir, from), filepath.Join(resultsDir, to), 0o644); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("sonobuoy results: %s: %w", from, err)
		}
	}
	done := filepath.Join(resultsDir, "done")
	tmp := done + ".tmp"
	if err := fsutil.WriteNew(tmp, []byte(resultsDir), 0o644); err != nil {
		return fmt.Errorf("sonobuoy results: %w", err)
	}
	// A rename, so the worker never reads a half-written path.
	return os.Rename(tmp, done)
}

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
}

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
	def := manifest{
		Config: map[string]string{
			"driver":        "Job",
			"plugin-name":   "draconform",
			"result-format": "junit",
			"description":   "KEP-6406 (DRA extended resource capacity) conformance by draconform",
		},
		Spec: container(p),
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

// manifest is Sonobuoy's plugin manifest (pkg/plugin/manifest).
type manifest struct {
	Config  map[string]string `json:"sonobuoy-config"`
	Spec    corev1.Container  `json:"spec"`
	PodSpec corev1.PodSpec    `json:"podSpec"`
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

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

	"github.com/draconform/draconform/tools/internal/fsutil"
	"github.com/draconform/draconform/tools/report"
	"gopkg.in/yaml.v3"
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
	Image string
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
// draconform then uses in-cluster; Sonobuoy adds its worker and volumes to
// a plugin's podSpec, and changes nothing in it.
func Definition(p Plugin) ([]byte, error) {
	if p.ServiceAccount == "" {
		p.ServiceAccount = DefaultServiceAccount
	}
	spec := map[string]any{
		"name":            "plugin",
		"image":           p.Image,
		"imagePullPolicy": "IfNotPresent",
		"command":         []string{"/draconform"},
		"args":            p.Args,
		"volumeMounts":    []map[string]any{{"name": "results", "mountPath": DefaultResultsDir}},
		"resources":       map[string]any{},
	}
	def := map[string]any{
		"sonobuoy-config": map[string]any{
			"driver":        "Job",
			"plugin-name":   "draconform",
			"result-format": "junit",
			"description":   "KEP-6406 (DRA extended resource capacity) conformance by draconform",
		},
		"spec": spec,
		"podSpec": map[string]any{
			"containers":         []any{},
			"restartPolicy":      "Never",
			"serviceAccountName": p.ServiceAccount,
		},
	}
	return yaml.Marshal(def)
}

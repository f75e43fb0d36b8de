package sonobuoy

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const junit = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="1"><testsuite name="draconform" tests="3" failures="1" skipped="1">
<testcase name="[It] a [prototype] s/a@capacity-on" status="passed"></testcase>
<testcase name="[It] b [prototype] s/b@capacity-on" status="failed"><failure message="boom">boom</failure></testcase>
<testcase name="[It] c [prototype] s/c@defaults" status="skipped"><skipped message="needs restarts"></skipped></testcase>
</testsuite></testsuites>`

// sonobuoyReads does what Sonobuoy's worker and JUnit processing do with a
// plugin's results directory: read done, take the path it names (a
// directory is archived whole), and count the test cases of the XML files.
func sonobuoyReads(t *testing.T, resultsDir string) (files []string, passed, failed, skipped int) {
	t.Helper()
	done, err := os.ReadFile(filepath.Join(resultsDir, "done"))
	if err != nil {
		t.Fatalf("no done file: %v", err)
	}
	target := strings.TrimSpace(string(done))
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatalf("done names %q: %v", target, err)
	}
	if !fi.IsDir() {
		t.Fatalf("done names a file, %s; draconform hands the directory", target)
	}
	entries, _ := os.ReadDir(target)
	for _, e := range entries {
		files = append(files, e.Name())
		if !strings.HasSuffix(e.Name(), ".xml") {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(target, e.Name()))
		var suites struct {
			Suites []struct {
				Cases []struct {
					Failure *struct{} `xml:"failure"`
					Skipped *struct{} `xml:"skipped"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(data, &suites); err != nil {
			t.Fatalf("%s is not JUnit: %v", e.Name(), err)
		}
		for _, s := range suites.Suites {
			for _, c := range s.Cases {
				switch {
				case c.Failure != nil:
					failed++
				case c.Skipped != nil:
					skipped++
				default:
					passed++
				}
			}
		}
	}
	return files, passed, failed, skipped
}

func TestPublishFollowsSonobuoysContract(t *testing.T) {
	run := t.TempDir()
	_ = os.WriteFile(filepath.Join(run, "junit.xml"), []byte(junit), 0o644)
	_ = os.WriteFile(filepath.Join(run, "matrix.txt"), []byte("matrix"), 0o644)
	_ = os.WriteFile(filepath.Join(run, "kubeconfig-kubeconfig-defaults"), []byte("client-key-data: secret"), 0o600)
	results := filepath.Join(t.TempDir(), "results")
	t.Setenv("SONOBUOY_RESULTS_DIR", results)
	if ResultsDir() != results {
		t.Fatalf("ResultsDir() = %s, want $SONOBUOY_RESULTS_DIR", ResultsDir())
	}
	if err := Publish(run, ResultsDir()); err != nil {
		t.Fatal(err)
	}
	files, passed, failed, skipped := sonobuoyReads(t, results)
	if passed != 1 || failed != 1 || skipped != 1 {
		t.Errorf("Sonobuoy would count %d passed, %d failed, %d skipped; want 1 each", passed, failed, skipped)
	}
	for _, f := range files {
		if strings.HasPrefix(f, "kubeconfig") || strings.HasSuffix(f, ".tmp") {
			t.Errorf("results hold %s", f)
		}
	}
	// A run that wrote no report must not signal done: the worker would
	// send an empty result and Sonobuoy report the plugin as passed.
	empty := filepath.Join(t.TempDir(), "results")
	if err := Publish(t.TempDir(), empty); err == nil {
		t.Error("published a run without a JUnit report")
	}
	if _, err := os.Stat(filepath.Join(empty, "done")); err == nil {
		t.Error("done written for a run without results")
	}
}

func TestDefinitionIsASonobuoyJUnitJob(t *testing.T) {
	data, err := Definition(Plugin{Image: "draconform.dev/draconform:v1", Args: []string{"run", "--provider", "kubeconfig", "--sonobuoy"}})
	if err != nil {
		t.Fatal(err)
	}
	var def struct {
		PodSpec map[string]any    `yaml:"podSpec"`
		Config  map[string]string `yaml:"sonobuoy-config"`
		Spec    struct {
			Image        string   `yaml:"image"`
			Command      []string `yaml:"command"`
			Args         []string `yaml:"args"`
			VolumeMounts []struct {
				Name      string `yaml:"name"`
				MountPath string `yaml:"mountPath"`
			} `yaml:"volumeMounts"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &def); err != nil {
		t.Fatal(err)
	}
	if def.Config["driver"] != "Job" || def.Config["result-format"] != "junit" || def.Config["plugin-name"] != "draconform" {
		t.Errorf("sonobuoy-config %v", def.Config)
	}
	if def.Spec.Image != "draconform.dev/draconform:v1" || def.Spec.Command[0] != "/draconform" || def.Spec.Args[len(def.Spec.Args)-1] != "--sonobuoy" {
		t.Errorf("spec %+v", def.Spec)
	}
	// The plugin's own service account, not Sonobuoy's (cluster-admin).
	if def.PodSpec["serviceAccountName"] != DefaultServiceAccount || def.PodSpec["restartPolicy"] != "Never" {
		t.Errorf("podSpec %v: the plugin must run as %s, the account draconform rbac's manifest is for", def.PodSpec, DefaultServiceAccount)
	}
	if len(def.Spec.VolumeMounts) != 1 || def.Spec.VolumeMounts[0].Name != "results" || def.Spec.VolumeMounts[0].MountPath != DefaultResultsDir {
		t.Errorf("volume mounts %+v; Sonobuoy shares the results volume at %s", def.Spec.VolumeMounts, DefaultResultsDir)
	}
}

// Run as root (a plugin whose pod runs as root), the results are not
// handed over in a folder others may write: another container of the pod,
// or a user of the node, could swap it for a link.
func TestRootRefusesAResultsFolderOthersCanSwap(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("draconform refuses such folders as root only; fsutil's test fakes root")
	}
	run := t.TempDir()
	_ = os.WriteFile(filepath.Join(run, "junit.xml"), []byte(junit), 0o644)
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	err := Publish(run, filepath.Join(shared, "results"))
	if err == nil || !strings.Contains(err.Error(), "through "+shared+":") {
		t.Errorf("published into a folder others may write: %v", err)
	}
}

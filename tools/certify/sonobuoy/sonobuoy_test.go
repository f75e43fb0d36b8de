package sonobuoy

import (
	"encoding/xml"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

const junit = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="1"><testsuite name="draconform" tests="3" failures="1" skipped="1">
<testcase name="[It] a [prototype] s/a@capacity-on" status="passed"></testcase>
<testcase name="[It] b [prototype] s/b@capacity-on" status="failed"><failure message="boom">boom</failure></testcase>
<testcase name="[It] c [prototype] s/c@defaults" status="skipped"><skipped message="needs restarts"></skipped></testcase>
</testsuite></testsuites>`

// sonobuoyReads does what Sonobuoy's worker, aggregator and JUnit
// processing do with a plugin's results directory: read done, take the
// path it names (a directory is archived whole, subfolders too, and
// unpacked so), and count the test cases of the files named as
// result-files names them, at any depth.
func sonobuoyReads(t *testing.T, resultsDir string, resultFiles []string) (files []string, passed, failed, skipped int) {
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
	err = filepath.WalkDir(target, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(target, path)
		files = append(files, rel)
		if !slices.Contains(resultFiles, d.Name()) {
			return nil
		}
		p, f, s := countJUnit(t, path)
		passed, failed, skipped = passed+p, failed+f, skipped+s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, passed, failed, skipped
}

func countJUnit(t *testing.T, path string) (passed, failed, skipped int) {
	t.Helper()
	data, _ := os.ReadFile(path)
	var suites struct {
		Suites []struct {
			Cases []struct {
				Failure *struct{} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("%s is not JUnit: %v", path, err)
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
	return passed, failed, skipped
}

// resultFiles is what the definition tells Sonobuoy to count.
func resultFiles(t *testing.T) []string {
	t.Helper()
	def := render(t, Plugin{Image: Image{Ref: "r/d:v1.0.0", PullPolicy: corev1.PullAlways}})
	files, _ := def.Config["result-files"].([]any)
	var names []string
	for _, f := range files {
		names = append(names, fmt.Sprint(f))
	}
	if len(names) == 0 {
		t.Fatalf("the definition names no result-files: Sonobuoy counts every XML file of the results: %v", def.Config)
	}
	return names
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
	files, passed, failed, skipped := sonobuoyReads(t, results, resultFiles(t))
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

// definition is what a plugin definition says, as Sonobuoy reads it.
type definition struct {
	PodSpec   corev1.PodSpec    `json:"podSpec"`
	Config    map[string]any    `json:"sonobuoy-config"`
	Spec      corev1.Container  `json:"spec"`
	ConfigMap map[string]string `json:"config-map"`
}

func render(t *testing.T, p Plugin) definition {
	t.Helper()
	data, err := Definition(p)
	if err != nil {
		t.Fatal(err)
	}
	var def definition
	if err := yaml.UnmarshalStrict(data, &def); err != nil {
		t.Fatalf("%v in\n%s", err, data)
	}
	return def
}

func TestDefinitionIsASonobuoyJUnitJob(t *testing.T) {
	img := Image{Ref: "draconform.dev/draconform:v1.0.0", PullPolicy: corev1.PullAlways}
	def := render(t, Plugin{Image: img, Args: []string{"run", "--provider", "kubeconfig", "--sonobuoy"}})
	if def.Config["driver"] != "Job" || def.Config["result-format"] != "junit" || def.Config["plugin-name"] != "draconform" {
		t.Errorf("sonobuoy-config %v", def.Config)
	}
	if def.Spec.Image != img.Ref || def.Spec.ImagePullPolicy != corev1.PullAlways || def.Spec.Command[0] != "/draconform" || def.Spec.Args[len(def.Spec.Args)-1] != "--sonobuoy" {
		t.Errorf("spec %+v", def.Spec)
	}
	// The plugin's own service account, not Sonobuoy's (cluster-admin).
	if def.PodSpec.ServiceAccountName != DefaultServiceAccount || def.PodSpec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("podSpec %+v: the plugin must run as %s, the account draconform rbac's manifest is for", def.PodSpec, DefaultServiceAccount)
	}
	mounts := map[string]string{}
	for _, m := range def.Spec.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	if mounts[DefaultResultsDir] != "results" {
		t.Errorf("volume mounts %+v; Sonobuoy shares the results volume at %s", def.Spec.VolumeMounts, DefaultResultsDir)
	}
	if _, err := Definition(Plugin{Image: Image{Ref: "draconform.dev/draconform:dev"}}); err == nil {
		t.Error("a definition without a pull policy was written")
	}
}

// The container asks for nothing of the node's: not root, no privilege
// escalation, no capability, the runtime's seccomp profile, and a root
// file system it cannot write; what it writes (its run, its private
// folders, the results) is on the pod's volumes.
func TestDefinitionRunsRestricted(t *testing.T) {
	def := render(t, Plugin{Image: Image{Ref: Repository + "@sha256:" + strings.Repeat("ab", 32), PullPolicy: corev1.PullIfNotPresent}})
	sc := def.Spec.SecurityContext
	if sc == nil {
		t.Fatal("the container has no securityContext")
	}
	switch {
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot, sc.RunAsUser == nil || *sc.RunAsUser == 0:
		t.Errorf("the container may run as root: %+v", sc)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("the container may escalate its privileges: %+v", sc)
	case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0:
		t.Errorf("the container keeps capabilities: %+v", sc.Capabilities)
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("the container may write its root file system: %+v", sc)
	case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("the container has no seccomp profile: %+v", sc)
	case def.PodSpec.SecurityContext == nil || def.PodSpec.SecurityContext.SeccompProfile == nil || def.PodSpec.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("the pod (Sonobuoy's worker too) has no seccomp profile: %+v", def.PodSpec.SecurityContext)
	}
	volumes := map[string]bool{"results": true} // Sonobuoy adds it
	for _, v := range def.PodSpec.Volumes {
		volumes[v.Name] = v.EmptyDir != nil
	}
	for _, m := range def.Spec.VolumeMounts {
		if !volumes[m.Name] {
			t.Errorf("%s is mounted from %s, no emptyDir of the pod's", m.MountPath, m.Name)
		}
		if m.MountPath == "/tmp" {
			volumes["/tmp"] = true
		}
	}
	if !volumes["/tmp"] {
		t.Errorf("nothing is writable at /tmp, where a run writes (--out /tmp/draconform, its private folders): %+v", def.Spec.VolumeMounts)
	}
}

// The image is pinned: a digest runs as the node holds it; a tag is
// pulled each time, never taken from whatever a node holds under that
// name; a build that is no release has no image of its own to name, and
// dev and latest name whichever build came last.
func TestPinImage(t *testing.T) {
	digest := Repository + "@sha256:" + strings.Repeat("0f", 32)
	for _, tt := range []struct {
		ref, version string
		want         Image
		refused      string
	}{
		{"", "v0.4.0", Image{Repository + ":v0.4.0", corev1.PullAlways}, ""},
		{"", "devel", Image{}, "--image " + Repository + "@sha256:"},
		{"", "v0.4.0-3-gabc1234-dirty", Image{}, "not a release"},
		{digest, "devel", Image{digest, corev1.PullIfNotPresent}, ""},
		{"registry.example.com/draconform:v0.4.0", "devel", Image{"registry.example.com/draconform:v0.4.0", corev1.PullAlways}, ""},
		{"draconform.dev/draconform:dev", "v0.4.0", Image{}, "the tag dev moves"},
		{"draconform.dev/draconform:latest", "devel", Image{}, "the tag latest moves"},
		{"draconform.dev/draconform", "devel", Image{}, "the tag latest moves"},
		{"localhost:5000/draconform", "devel", Image{}, "the tag latest moves"},
		{"localhost:5000/draconform:v0.4.0", "devel", Image{"localhost:5000/draconform:v0.4.0", corev1.PullAlways}, ""},
		{"Bad Name", "devel", Image{}, "name an image by tag"},
	} {
		got, err := PinImage(tt.ref, tt.version)
		if tt.refused != "" {
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Errorf("PinImage(%q, %q) = %+v, %v; want a refusal saying %q", tt.ref, tt.version, got, err, tt.refused)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("PinImage(%q, %q) = %+v, %v; want %+v", tt.ref, tt.version, got, err, tt.want)
		}
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

// A certify run hands its bundle over whole, in bundle/ of the results,
// beside the run's reports; Sonobuoy counts each case once, from the
// bundle's JUnit report, and nothing but the bundle's files and the
// reports is handed over.
func TestPublishBundleHandsTheBundleOverWhole(t *testing.T) {
	run := t.TempDir()
	_ = os.WriteFile(filepath.Join(run, "junit.xml"), []byte(junit), 0o644)
	_ = os.WriteFile(filepath.Join(run, "matrix.txt"), []byte("matrix"), 0o644)
	_ = os.WriteFile(filepath.Join(run, "kubeconfig-kubeconfig-defaults"), []byte("client-key-data: secret"), 0o600)
	bundleDir := filepath.Join(run, "bundle")
	_ = os.Mkdir(bundleDir, 0o755)
	bundleFiles := map[string]string{"junit_01.xml": junit, "verdicts.json": "[]", "SHA256SUMS": "sums", "PRODUCT.yaml": "kind: Product"}
	for name, data := range bundleFiles {
		_ = os.WriteFile(filepath.Join(bundleDir, name), []byte(data), 0o644)
	}
	results := filepath.Join(t.TempDir(), "results")
	if err := PublishBundle(run, bundleDir, results); err != nil {
		t.Fatal(err)
	}
	files, passed, failed, skipped := sonobuoyReads(t, results, resultFiles(t))
	if passed != 1 || failed != 1 || skipped != 1 {
		t.Errorf("Sonobuoy would count %d passed, %d failed, %d skipped; want 1 each (each case once)", passed, failed, skipped)
	}
	for name := range bundleFiles {
		if !slices.Contains(files, filepath.Join(BundleDir, name)) {
			t.Errorf("the results lack the bundle's %s: %v", name, files)
		}
	}
	if !slices.Contains(files, "matrix.txt") {
		t.Errorf("the results lack the run's matrix: %v", files)
	}
	for _, f := range files {
		if strings.Contains(f, "kubeconfig") || strings.HasSuffix(f, ".tmp") {
			t.Errorf("results hold %s", f)
		}
	}
}

// A bundle that is not one (no JUnit report, a link in it) is not handed
// over, and no done is written for it.
func TestPublishBundleRefusesWhatIsNoBundle(t *testing.T) {
	run := t.TempDir()
	_ = os.WriteFile(filepath.Join(run, "junit.xml"), []byte(junit), 0o644)
	noJUnit := t.TempDir()
	_ = os.WriteFile(filepath.Join(noJUnit, "verdicts.json"), []byte("[]"), 0o644)
	linked := t.TempDir()
	_ = os.WriteFile(filepath.Join(linked, "junit_01.xml"), []byte(junit), 0o644)
	_ = os.Symlink("/etc/passwd", filepath.Join(linked, "e2e.log"))
	for name, dir := range map[string]string{"no JUnit report": noJUnit, "a symbolic link": linked} {
		results := filepath.Join(t.TempDir(), "results")
		if err := PublishBundle(run, dir, results); err == nil {
			t.Errorf("%s: published", name)
		}
		if _, err := os.Stat(filepath.Join(results, "done")); err == nil {
			t.Errorf("%s: done written", name)
		}
	}
}

// The plugin's files go into its config-map, which Sonobuoy mounts at
// ConfigDir; names a ConfigMap cannot hold are refused, and a plugin
// without files has no config-map.
func TestDefinitionCarriesFilesInItsConfigMap(t *testing.T) {
	img := Image{Ref: "r/d:v1.0.0", PullPolicy: corev1.PullAlways}
	def := render(t, Plugin{Image: img, Files: map[string]string{"product.yaml": "kind: Product\n"}})
	if def.ConfigMap["product.yaml"] != "kind: Product\n" || len(def.ConfigMap) != 1 {
		t.Errorf("config-map %v", def.ConfigMap)
	}
	if ConfigPath("product.yaml") != "/tmp/sonobuoy/config/product.yaml" {
		t.Errorf("ConfigPath = %s", ConfigPath("product.yaml"))
	}
	data, err := Definition(Plugin{Image: img})
	if err != nil || strings.Contains(string(data), "config-map") {
		t.Errorf("a plugin without files has a config-map (%v):\n%s", err, data)
	}
	for _, bad := range []string{"../etc/passwd", "a/b.yaml", "", "..", "a b"} {
		if _, err := Definition(Plugin{Image: img, Files: map[string]string{bad: "x"}}); err == nil {
			t.Errorf("file %q accepted", bad)
		}
	}
}

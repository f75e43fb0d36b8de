package loader_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/suites/profiles"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
)

func TestShippedProfileLoads(t *testing.T) {
	p, err := loader.LoadProfileFS(profiles.FS, profiles.TestDriver)
	if err != nil {
		t.Fatal(err)
	}
	v := p.Vars()
	sel := v["profileSelector"]
	if !strings.HasPrefix(sel.Value, `device.driver == "testdriver.draconform.dev" && (`) {
		t.Errorf("profileSelector %q", sel.Value)
	}
	if cmd := v["profileCommand"]; len(cmd.Content) != 2 {
		t.Errorf("profileCommand %v", cmd.Content)
	}
}

// TestExampleDriverFilesLoad: the worked example of self-certification
// (make certify-example) ships a profile and a product file, which must
// load as a vendor's would.
func TestExampleDriverFilesLoad(t *testing.T) {
	p, err := loader.LoadProfile(filepath.Join("..", "..", "..", "suites", "profiles", "dra-example-driver.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Driver != "gpu.example.com" {
		t.Errorf("driver %q", p.Driver)
	}
	prod, err := loader.LoadProduct(filepath.Join("..", "..", "..", "suites", "profiles", "dra-example-driver.product.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if prod.Driver != p.Driver {
		t.Errorf("the product names driver %q, the profile %q", prod.Driver, p.Driver)
	}
}

// badProfile has a typo, a name that is no DNS label, a share that is no
// quantity, and misses three fields.
const badProfile = "apiVersion: draconform.dev/v1alpha1\nkind: DriverProfile\nname: Vendor_X\ndriver: gpu.example.com\ncapacity: memory\nshare: ten\nworkload: {image: x, comand: [sh]}\n"

func TestProfileProblems(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	_ = os.WriteFile(path, []byte(badProfile), 0o644)
	_, err := loader.LoadProfile(path)
	if err == nil {
		t.Fatal("a bad profile loaded")
	}
	for _, want := range []string{
		path + `:7: unknown key "comand" in profileWorkload (did you mean command?)`,
		`driver profile name "Vendor_X" is not a DNS label`,
		`driver profile share "ten" is not a quantity`,
		`driver profile: overCapacity is missing`,
		`driver profile: workload.command is missing`,
		`driver profile: env is missing`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %q:\n%v", want, err)
		}
	}
}

// A driver that publishes several capacities names a share of each; the two
// forms of a share cannot be mixed, and each quantity is checked.
func TestProfileWithSeveralCapacities(t *testing.T) {
	const head = "apiVersion: draconform.dev/v1alpha1\nkind: DriverProfile\nname: example\ndriver: gpu.example.com\nworkload: {image: x, command: [sh]}\nenv: {GPU_DEVICE_0_MEMORY: 40Gi}\n"
	dir := t.TempDir()
	load := func(body string) (*spec.DriverProfile, error) {
		path := filepath.Join(dir, "p.yaml")
		_ = os.WriteFile(path, []byte(head+body), 0o644)
		return loader.LoadProfile(path)
	}
	p, err := load("requests: {memory: 40Gi, compute: \"50\"}\noverRequests: {memory: 1Ti}\noutput: [\"GPU 0:\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ShareRequests(); len(got) != 2 || got["compute"] != "50" || p.OverShareRequests()["memory"] != "1Ti" {
		t.Errorf("share %v, over %v", got, p.OverShareRequests())
	}
	for body, want := range map[string]string{
		"capacity: memory\nshare: 40Gi\noverCapacity: 1Ti\nrequests: {compute: \"50\"}\noverRequests: {memory: 1Ti}\n": "give one form of the share, not both",
		"requests: {memory: 40Gi}\n":                               "requests and overRequests go together",
		"requests: {memory: forty}\noverRequests: {memory: 1Ti}\n": `driver profile requests.memory "forty" is not a quantity`,
		"capacity: memory\n":                                       "driver profile: share is missing",
	} {
		if _, err := load(body); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

// A profile whose env only names variables (<any>) would pass a driver that
// prepares the whole device: one variable must carry the share's amount.
func TestProfileEnvCarriesTheShare(t *testing.T) {
	const head = "apiVersion: draconform.dev/v1alpha1\nkind: DriverProfile\nname: example\ndriver: gpu.example.com\nworkload: {image: x, command: [sh]}\n" +
		"requests: {memory: 40Gi, compute: \"50\"}\noverRequests: {memory: 1Ti}\n"
	dir := t.TempDir()
	for env, fails := range map[string]bool{
		"env: {GPU_DEVICE_<deviceNumber>_MEMORY: 40Gi}\n":                 false,
		"env: {GPU_DEVICE_<deviceNumber>_MEMORY: 40960Mi}\n":              false,
		"env: {GPU_DEVICE_<deviceNumber>_COMPUTE: \"50\"}\n":              false,
		"env: {NVIDIA_VISIBLE_DEVICES: <any>, DRIVER: gpu.example.com}\n": true,
		"env: {GPU_DEVICE_0_MEMORY: 80Gi}\n":                              true,
	} {
		path := filepath.Join(dir, "p.yaml")
		_ = os.WriteFile(path, []byte(head+env), 0o644)
		_, err := loader.LoadProfile(path)
		if got := err != nil && strings.Contains(err.Error(), "no variable of env carries the share's amount (compute 50, memory 40Gi)"); got != fails {
			t.Errorf("%q: %v, want the refusal %v", env, err, fails)
		}
	}
}

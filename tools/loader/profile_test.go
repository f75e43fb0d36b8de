package loader_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/suites/profiles"
	"github.com/draconform/draconform/tools/loader"
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

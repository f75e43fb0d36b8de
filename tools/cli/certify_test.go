package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// certify refuses, before anything runs, what would make a bundle claim
// less than it says.
func TestCertifyRefusesBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	product := filepath.Join(dir, "product.yaml")
	_ = os.WriteFile(product, []byte("apiVersion: draconform.dev/v1alpha1\nkind: Product\nvendor: V\nname: N\nversion: \"1\"\ndriver: gpu.example.com\nimage: img:1\ncontact: a@b.example\n"), 0o644)
	profile := filepath.Join(dir, "profile.yaml")
	_ = os.WriteFile(profile, []byte("apiVersion: draconform.dev/v1alpha1\nkind: DriverProfile\nname: other\ndriver: nic.example.com\ncapacity: bandwidth\nshare: 1Gi\noverCapacity: 1Ti\nworkload: {image: busybox, command: [sh]}\nenv: {X: <any>, BANDWIDTH: 1Gi}\n"), 0o644)
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"certify", "--product", product, "--focus", "kep6406"}, "--focus is refused: certify runs every case of every suite"},
		{[]string{"certify", "--product", product, "--suite", "kep6406-api"}, "--suite is refused"},
		{[]string{"certify"}, "--product FILE is required"},
		{[]string{"certify", "--product", product, "--claim", "kep6406-gates-on", "--provider", "local,prototype"}, "a bundle certifies one implementation"},
		{[]string{"certify", "--product", product, "--claim", "kep6406-gates-on", "--driver-profile", profile}, "the product's driver is gpu.example.com, the driver profile's nic.example.com"},
		{[]string{"certify", "--product", filepath.Join(dir, "missing.yaml"), "--claim", "kep6406-gates-on"}, "product file"},
		// No default: a vendor names the claim before the run, and cannot
		// pick afterwards whichever one happened to stand.
		{[]string{"certify", "--product", product}, "--claim NAME is required: the claim the bundle certifies, one of kep6406-gates-on, kep6406-gate-transitions, kep6406-partial-gates, feature-absent-safe"},
		{[]string{"certify", "--product", product, "--claim", "everything"}, "--claim everything is not a claim"},
		// Sonobuoy takes one whole bundle from the plugin.
		{[]string{"certify", "--product", product, "--claim", "kep6406-gates-on", "--sonobuoy", "--shard", "1/2"}, "--sonobuoy hands Sonobuoy one whole bundle"},
	} {
		code, _, errs := run(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.says) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.says)
		}
	}
	if entries, _ := os.ReadDir("_output"); len(entries) > 0 {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "certify-") {
				t.Errorf("a refused certify left %s", e.Name())
			}
		}
	}
}

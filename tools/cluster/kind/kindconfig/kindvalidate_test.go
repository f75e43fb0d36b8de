package kindconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	kindcluster "sigs.k8s.io/kind/pkg/cluster"
)

// kind validates a config only inside Provider.Create, and only after it
// has asked the container engine for `info` and for the nodes of a
// cluster of that name (pkg/cluster/internal/create/create.go: Info,
// fixupOptions, alreadyExists, then Config.Validate, then Provision). Its
// validation has no other public entry point. The nerdctl provider takes
// the engine binary by path, so a script that answers those two questions
// and fails everything else lets kind's own strict decoding, defaulting
// and validation run here, without Docker: an error from the script means
// the config got past all of them.
const fakeEngine = `#!/bin/sh
case "$1" in
info) echo '{"CgroupDriver":"systemd","CgroupVersion":"2","MemoryLimit":true,"PidsLimit":true,"CPUShares":true}' ;;
ps) ;;
inspect) ;;
*) echo "fake engine: kind got as far as: $*" >&2; exit 3 ;;
esac
`

// createWithFakeEngine runs kind's Create on raw and returns its error.
// `ps` prints no nodes (no cluster of that name exists) and `inspect`
// succeeds (the node image is "present", which skips kind's pull retries).
func createWithFakeEngine(t *testing.T, raw []byte) error {
	t.Helper()
	dir := t.TempDir()
	engine := filepath.Join(dir, "fake-engine")
	if err := os.WriteFile(engine, []byte(fakeEngine), 0o755); err != nil {
		t.Fatal(err)
	}
	p := kindcluster.NewProvider(kindcluster.ProviderWithNerdctl(engine))
	// An explicit kubeconfig path keeps kind's clean-up after the failed
	// provisioning away from the user's ~/.kube/config.
	err := p.Create("draconform-validate", kindcluster.CreateWithRawConfig(raw), kindcluster.CreateWithKubeconfigPath(filepath.Join(dir, "kubeconfig")))
	if err == nil {
		t.Fatal("kind created a cluster with a fake engine")
	}
	return err
}

// provisioning tells whether kind got past validation: then it creates
// its network with the engine, which the fake refuses.
func provisioning(err error) bool {
	return strings.Contains(err.Error(), "fake-engine") && strings.Contains(err.Error(), " network create ")
}

func TestKindAcceptsEveryGeneratedConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kind's create path against a fake engine")
	}
	cells := shippedCells(t)
	variants := []struct {
		name string
		opts Options
	}{{"node-image", Options{}}, {"kep-binaries", Options{KEPBinDir: "/host/bin", PatchesDir: "/host/patches"}}}
	for _, v := range variants {
		files, err := Files(cells, v.opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cells {
			name := FileName(c.Name)
			t.Run(v.name+"/"+name, func(t *testing.T) {
				err := createWithFakeEngine(t, files[name])
				if !provisioning(err) {
					t.Errorf("kind stopped before provisioning, so it rejected the config: %v", err)
				}
			})
		}
	}
}

// The same path rejects what kind's validation rejects, so the test above
// would notice a config kind refuses.
func TestKindRejectsBrokenConfigsThroughTheSamePath(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kind's create path against a fake engine")
	}
	cfg, err := Build(shippedCells(t)[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	good, err := Encode(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, from, to, want string
	}{
		{"unknown field", "runtimeConfig:", "runtimeConfg:", "field runtimeConfg not found"},
		{"invalid role", "role: worker", "role: bogus", `"bogus" is not a valid node role`},
		{"invalid subnet", "name: draconform", "name: draconform\nnetworking:\n  podSubnet: not-a-cidr", "invalid pod subnet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(string(good), tt.from) {
				t.Fatalf("generated config lacks %q:\n%s", tt.from, good)
			}
			err := createWithFakeEngine(t, []byte(strings.Replace(string(good), tt.from, tt.to, 1)))
			if !strings.Contains(err.Error(), tt.want) || provisioning(err) {
				t.Errorf("error %v, want kind's %q before provisioning", err, tt.want)
			}
		})
	}
}

package localcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/cluster"
)

// fakeBinary writes a script that prints help text the way Kubernetes
// binaries list their gates.
func fakeBinary(t *testing.T, dir, name, help string) {
	t.Helper()
	script := "#!/bin/sh\ncat <<'EOF'\n" + help + "\nEOF\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestStartRefusesGatesTheBinariesLack(t *testing.T) {
	dir := t.TempDir()
	help := "      --feature-gates colonSeparatedMultimapStringString   Options are:\n" +
		"                kube:DRAConsumableCapacity=true|false (BETA - default=true)\n" +
		"                kube:DRADeviceTaints=true|false (BETA - default=true)"
	for _, c := range cluster.Components {
		fakeBinary(t, dir, string(c), help)
	}
	p := New(Options{BinDir: dir, OutDir: t.TempDir(), Version: "vtest"})
	_, err := p.Start(context.Background(), "c", cluster.GateState{
		cluster.APIServer: {"DRAExtendedResourceCapacity": true, "DRAConsumableCapacity": true},
		cluster.Scheduler: {"DRAExtendedResourceCapacity": true},
	})
	if !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("want ErrUnsupported, got %v", err)
	}
	for _, want := range []string{"kube-apiserver has no alpha or beta feature gate DRAExtendedResourceCapacity", "kube-scheduler has no alpha or beta feature gate DRAExtendedResourceCapacity"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "DRAConsumableCapacity") {
		t.Errorf("a gate the binary lists was reported missing: %v", err)
	}
	known, err := p.knownGates(context.Background(), filepath.Join(dir, string(cluster.Scheduler)))
	if err != nil || !known["DRADeviceTaints"] || len(known) != 2 {
		t.Errorf("parsed gates %v, %v", known, err)
	}
}

// A mixed cell asks the released binary, not the implementation's, whether
// it knows a gate: a scheduler that predates the KEP cannot have the KEP's.
func TestMixedCellAsksTheReleasedBinary(t *testing.T) {
	impl, released := t.TempDir(), t.TempDir()
	for _, c := range cluster.Components {
		fakeBinary(t, impl, string(c), "kube:DRAExtendedResourceCapacity=true|false (ALPHA - default=false)")
		fakeBinary(t, released, string(c), "kube:DRAConsumableCapacity=true|false (BETA - default=true)")
	}
	own := filepath.Join(t.TempDir(), "my-scheduler")
	fakeBinary(t, filepath.Dir(own), "my-scheduler", "kube:DRAExtendedResourceCapacity=true|false (ALPHA - default=false)")
	opts := Options{BinDir: impl, ReleasedBinDir: released, Binaries: map[cluster.Component]string{cluster.ControllerManager: own}, OutDir: t.TempDir(), Version: "vtest"}
	p := New(opts)
	_, err := p.StartMixed(context.Background(), "skew", cluster.GateState{cluster.Scheduler: {"DRAExtendedResourceCapacity": true}}, []cluster.Component{cluster.Scheduler})
	if !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), "kube-scheduler has no alpha or beta feature gate DRAExtendedResourceCapacity") {
		t.Fatalf("want the released scheduler's missing gate, got %v", err)
	}
	rel := map[cluster.Component]bool{cluster.Scheduler: true}
	for comp, want := range map[cluster.Component]string{
		cluster.Scheduler:         filepath.Join(released, "kube-scheduler"),
		cluster.APIServer:         filepath.Join(impl, "kube-apiserver"),
		cluster.ControllerManager: own,
	} {
		if got := opts.binary(comp, rel); got != want {
			t.Errorf("binary(%s) = %s, want %s", comp, got, want)
		}
	}
	if _, err := New(Options{BinDir: impl, OutDir: t.TempDir()}).StartMixed(context.Background(), "skew", nil, []cluster.Component{cluster.Scheduler}); !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("a provider without released binaries must say it cannot run the cell, got %v", err)
	}
}

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
	known, err := p.knownGates(context.Background(), cluster.Scheduler)
	if err != nil || !known["DRADeviceTaints"] || len(known) != 2 {
		t.Errorf("parsed gates %v, %v", known, err)
	}
}

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

// gateScript writes a binary that behaves as Kubernetes' do with
// --feature-gates and --version: it refuses the gates refuse names, in
// component-base's words, and otherwise prints its version. Every call
// appends a line to calls.
func gateScript(t *testing.T, path, refuse, words, calls string) {
	t.Helper()
	script := "#!/bin/sh\necho called >> '" + calls + "'\n" +
		"case \"$1\" in\n" +
		"--feature-gates=" + refuse + ") echo 'E1205 01:52:15.265971   17480 run.go:72] \"command failed\" err=\"" + words + "\"' >&2; exit 1;;\n" +
		"--feature-gates=*) echo 'Kubernetes vtest';;\n" +
		"*) echo \"Error: unknown flag: $1\" >&2; exit 1;;\n" +
		"esac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A restart's gates are put to the binary the cell runs for the component,
// and the binary's own refusal is the answer: gates it takes give "", and
// a binary that fails for another reason gives an error, not a refusal.
func TestGatesRefusedAsksTheCellsBinary(t *testing.T) {
	impl, released := t.TempDir(), t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	dependency := "DRAFractionalCapacityRange is enabled, but depends on features that are disabled: [DRAConsumableCapacity]"
	gateScript(t, filepath.Join(impl, "kube-scheduler"), "DRAConsumableCapacity=false", dependency, calls)
	gateScript(t, filepath.Join(released, "kube-scheduler"), "DRAExtendedResourceCapacity=true", "unrecognized feature gate: DRAExtendedResourceCapacity", calls)
	if err := os.WriteFile(filepath.Join(impl, "kube-apiserver"), []byte("#!/bin/sh\necho 'flag provided but not defined' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := New(Options{BinDir: impl, ReleasedBinDir: released, OutDir: t.TempDir(), Version: "vtest"})
	ctx := context.Background()
	off := cluster.Gates{"DRAConsumableCapacity": false}

	why, err := p.GatesRefused(ctx, cluster.Scheduler, off, nil)
	if err != nil || !strings.Contains(why, dependency) || !strings.Contains(why, "kube-scheduler") {
		t.Errorf("the scheduler's refusal: %q, %v; want its own words %q", why, err, dependency)
	}
	if why, err := p.GatesRefused(ctx, cluster.Scheduler, cluster.Gates{"DRAConsumableCapacity": true}, nil); why != "" || err != nil {
		t.Errorf("gates the scheduler takes: %q, %v", why, err)
	}
	// A skew cell's scheduler is the released one: it takes what the
	// implementation's refuses, and refuses what it lacks.
	if why, err := p.GatesRefused(ctx, cluster.Scheduler, off, []cluster.Component{cluster.Scheduler}); why != "" || err != nil {
		t.Errorf("the released scheduler was not the one asked: %q, %v", why, err)
	}
	if why, _ := p.GatesRefused(ctx, cluster.Scheduler, cluster.Gates{"DRAExtendedResourceCapacity": true}, []cluster.Component{cluster.Scheduler}); !strings.Contains(why, "unrecognized feature gate: DRAExtendedResourceCapacity") {
		t.Errorf("the released scheduler's refusal: %q", why)
	}
	if why, err := p.GatesRefused(ctx, cluster.APIServer, off, nil); why != "" || err == nil {
		t.Errorf("a binary that fails without refusing gates: %q, %v; want an error and no refusal", why, err)
	}
	// No gates are the binary's defaults, which it always takes.
	if why, err := p.GatesRefused(ctx, cluster.APIServer, nil, nil); why != "" || err != nil {
		t.Errorf("no gates: %q, %v", why, err)
	}
	before, _ := os.ReadFile(calls)
	if why2, _ := p.GatesRefused(ctx, cluster.Scheduler, off, nil); why2 != why {
		t.Errorf("asked again: %q, first %q", why2, why)
	}
	if after, _ := os.ReadFile(calls); len(after) != len(before) {
		t.Errorf("the binary was asked twice about the same gates")
	}
}

// The real v1.37.2 binaries refuse a locked gate and a gate turned off
// under one that depends on it at --version, before starting anything,
// and take a beta gate turned off.
func TestGatesRefusedByRealBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("may build the v1.37.2 binaries first")
	}
	binDir := ensureTestBinaries(t)
	p := New(Options{BinDir: binDir, OutDir: t.TempDir(), Version: testVersion})
	ctx := context.Background()
	for _, tc := range []struct {
		comp  cluster.Component
		gates cluster.Gates
		want  string
	}{
		{cluster.ControllerManager, cluster.Gates{"DRAExtendedResource": false}, "cannot set feature gate DRAExtendedResource to false, feature is locked to true"},
		{cluster.Scheduler, cluster.Gates{"DRAFractionalCapacityRange": true, "DRAConsumableCapacity": false}, "DRAFractionalCapacityRange is enabled, but depends on features that are disabled: [DRAConsumableCapacity]"},
		{cluster.APIServer, cluster.Gates{"NoSuchGate": true}, "unrecognized feature gate: NoSuchGate"},
		{cluster.Scheduler, cluster.Gates{"DRAConsumableCapacity": false}, ""},
	} {
		why, err := p.GatesRefused(ctx, tc.comp, tc.gates, nil)
		if err != nil || (tc.want == "") != (why == "") || !strings.Contains(why, tc.want) {
			t.Errorf("%s {%s}: %q, %v; want %q", tc.comp, tc.gates.Flag(), why, err, tc.want)
		}
	}
}

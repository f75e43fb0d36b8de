package localnode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/internal/bintrust"
)

// containerd runs runc, its shim and the CNI plugins as root and checks
// none of them: the node checks each before it links it for containerd.
func TestNodeRefusesAChangedRuntimeBinary(t *testing.T) {
	key := filepath.Join(t.TempDir(), RuntimeVersion)
	b := Binaries{RuntimeDir: filepath.Join(key, "bin"), ToolsDir: t.TempDir()}
	if err := os.MkdirAll(b.RuntimeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(key, ".lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{b.RuntimeDir, b.ToolsDir} {
		for _, n := range append(RuntimeBinaries, "draconform-runc") {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n# "+n+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := bintrust.Record(b.RuntimeDir, RuntimeBinaries); err != nil {
		t.Fatal(err)
	}
	trust := &bintrust.Checker{EUID: func() int { return 1000 }}
	if err := linkBinaries(trust, b, t.TempDir()); err != nil {
		t.Fatalf("the runtime as built: %v", err)
	}
	runc := filepath.Join(b.RuntimeDir, "runc")
	if err := os.WriteFile(runc, []byte("#!/bin/sh\n# another runc\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := linkBinaries(trust, b, t.TempDir()); err == nil || !strings.Contains(err.Error(), runc) {
		t.Errorf("linkBinaries with a runc changed since its build = %v; want a refusal naming %s", err, runc)
	}
}

package driver

import (
	"os"

	"k8s.io/apimachinery/pkg/types"
	"testing"
)

func TestSpecPathRejectsUnsafeUIDs(t *testing.T) {
	dir := cdiDir(t.TempDir())
	for _, uid := range []string{"", "../etc", "a/b", "a.b", "a b"} {
		if _, err := dir.specPath(types.UID(uid)); err == nil {
			t.Errorf("specPath(%q) succeeded", uid)
		}
		if err := dir.remove(types.UID(uid)); err == nil {
			t.Errorf("remove(%q) succeeded", uid)
		}
	}
	path, err := dir.specPath("6f1c0d2e-0000-4a4b-9c9d-000000000001")
	if err != nil {
		t.Fatal(err)
	}
	if want := string(dir) + "/testdriver.draconform.dev-claim_6f1c0d2e-0000-4a4b-9c9d-000000000001.json"; path != want {
		t.Errorf("specPath = %s, want %s", path, want)
	}
}

func TestWriteLeavesOnlyTheSpec(t *testing.T) {
	dir := cdiDir(t.TempDir())
	spec := cdiSpec{Version: cdiVersion, Kind: cdiKind, Devices: []cdiDevice{{Name: "u-0"}}}
	for range 2 {
		if err := dir.write("u", spec); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(string(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "testdriver.draconform.dev-claim_u.json" {
		t.Errorf("directory holds %v, want only the spec", entries)
	}
	info, err := entries[0].Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("spec mode = %v, want 0644 (the runtime reads it)", info.Mode().Perm())
	}
}

package k8sbuild

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A cache filled anew for another recipe keeps no binary of the old one:
// crictl, which only the kind node image's build names, would otherwise
// pass for the new recipe's when that build next looks.
func TestAnotherRecipeLeavesNoOldBinary(t *testing.T) {
	key := t.TempDir()
	write := func(dir, name string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(key, "bin")
	for _, n := range []string{"containerd", "crictl"} {
		write(bin, n)
	}
	if err := os.WriteFile(filepath.Join(key, "recipe"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	fills := 0
	fill := func(_ context.Context, scratch string, missing []string) error {
		fills++
		for _, n := range missing {
			write(scratch, n)
		}
		return nil
	}
	embedded := Cache{KeyDir: key, Names: []string{"containerd"}, Recipe: "new", Log: io.Discard}
	if _, built, err := embedded.Ensure(context.Background(), fill); err != nil || !built {
		t.Fatalf("the embedded node's build under a new recipe: built %v, %v", built, err)
	}
	if _, err := os.Stat(filepath.Join(bin, "crictl")); err == nil {
		t.Error("crictl of the old recipe is still in the cache")
	}
	image := Cache{KeyDir: key, Names: []string{"containerd", "crictl"}, Recipe: "new", Log: io.Discard}
	if m := image.Missing(); len(m) != 1 || m[0] != "crictl" {
		t.Errorf("the node image's build finds %v missing; want crictl", m)
	}
	if _, built, err := embedded.Ensure(context.Background(), fill); err != nil || built {
		t.Errorf("the same recipe again: built %v, %v; want the cache as it is", built, err)
	}
}

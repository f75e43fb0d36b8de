package k8sbuild

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/internal/bintrust"
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

// A build records the digests of what it put in the cache, and a cache
// reused because it is there is checked against them: one made before
// digests were recorded is refused with the command that records them,
// and not built again unasked.
func TestEnsureRecordsDigestsAndRefusesACacheWithout(t *testing.T) {
	key := t.TempDir()
	fill := func(_ context.Context, scratch string, missing []string) error {
		for _, n := range missing {
			if err := os.WriteFile(filepath.Join(scratch, n), []byte("#!/bin/sh\necho "+n+"\n"), 0o755); err != nil {
				return err
			}
		}
		return nil
	}
	c := Cache{KeyDir: key, Names: []string{"kubelet", "etcd"}, Recipe: "r", Log: io.Discard}
	bin, built, err := c.Ensure(context.Background(), fill)
	if err != nil || !built {
		t.Fatalf("first Ensure: built %v, %v", built, err)
	}
	for _, n := range c.Names {
		if _, err := bintrust.Check(filepath.Join(bin, n)); err != nil {
			t.Errorf("%s as built: %v", n, err)
		}
	}
	if err := os.Remove(bintrust.ManifestPath(bin)); err != nil {
		t.Fatalf("the build recorded no digests: %v", err)
	}
	// Now as a cache made before this change: every binary, no manifest.
	_, built, err = c.Ensure(context.Background(), func(context.Context, string, []string) error {
		t.Error("a cache without digests was built again unasked")
		return nil
	})
	if err == nil || built || !strings.Contains(err.Error(), bintrust.RecordHint(bin)) {
		t.Errorf("Ensure of a cache without digests: built %v, %v; want a refusal saying: %s", built, err, bintrust.RecordHint(bin))
	}
}

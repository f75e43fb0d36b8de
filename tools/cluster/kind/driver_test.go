package kind

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/build/k8sbuild"
)

// The driver's image is built once per provider, from the repository's
// driver, with no Docker and no registry.
func TestBuildDriverImageOncePerProvider(t *testing.T) {
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	p, _ := simProvider(t, Options{OutDir: out, RepoRoot: root})
	first, err := p.buildDriverImage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(out, "testdriver", "testdriver-image.tar"); first != want {
		t.Errorf("archive %s, want %s", first, want)
	}
	before, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.buildDriverImage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(second)
	if err != nil {
		t.Fatal(err)
	}
	if second != first || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("second call built again: %s (%v) after %s (%v)", second, after.ModTime(), first, before.ModTime())
	}
}

func TestBuildDriverImageFailureShowsTheCompilersOutput(t *testing.T) {
	p, _ := simProvider(t, Options{RepoRoot: t.TempDir()})
	_, err := p.buildDriverImage(context.Background())
	if err == nil {
		t.Fatal("built a driver from an empty directory")
	}
	if got := err.Error(); !strings.Contains(got, "building the test driver") || !strings.Contains(got, "go.mod") {
		t.Errorf("error does not say what failed: %v", err)
	}
}

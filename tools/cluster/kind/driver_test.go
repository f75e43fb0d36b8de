package kind

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuildDriverImageOncePerProvider(t *testing.T) {
	var ran []string
	runner := func(_ context.Context, name string, args ...string) ([]byte, error) {
		ran = append(ran, name+" "+strings.Join(args, " "))
		return nil, nil
	}
	out := t.TempDir()
	p, _ := simProvider(t, Options{Runner: runner, OutDir: out, RepoRoot: "/repo"})
	for i := 0; i < 2; i++ {
		archive, err := p.buildDriverImage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if archive != filepath.Join(out, "testdriver-image.tar") {
			t.Errorf("archive %s", archive)
		}
	}
	want := []string{
		"docker build -f /repo/drivers/Dockerfile -t draconform.dev/testdriver:dev /repo",
		"docker save -o " + filepath.Join(out, "testdriver-image.tar") + " draconform.dev/testdriver:dev",
	}
	if diff := cmp.Diff(want, ran); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
}

func TestBuildDriverImageFailureShowsDockersOutput(t *testing.T) {
	runner := func(_ context.Context, name string, args ...string) ([]byte, error) {
		return []byte("#5 ERROR: failed to read dockerfile: open Dockerfile: no such file or directory\n"), errors.New("exit status 1")
	}
	p, _ := simProvider(t, Options{Runner: runner, RepoRoot: "/repo"})
	_, err := p.buildDriverImage(context.Background())
	if err == nil || !strings.Contains(err.Error(), "docker build: exit status 1: #5 ERROR: failed to read dockerfile") {
		t.Errorf("error %v", err)
	}
}

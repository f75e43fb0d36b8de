package build

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/build/k8sbuild"
)

// The prototype's build reaches the compiler as the vanilla one does
// (k8sbuild.CompileFlags and CompileEnv), whatever the caller's CGO_ENABLED:
// otherwise none of the vanilla build's packages serve it and it compiles
// all of Kubernetes again. Its own linker flags, the version stamp, come
// last, so that go build takes them. A fake go on PATH records what it got.
func TestGoBuildEnvironment(t *testing.T) {
	bin := t.TempDir()
	record := filepath.Join(bin, "env")
	script := "#!/bin/sh\necho \"CGO_ENABLED=${CGO_ENABLED-unset} GOWORK=$GOWORK $*\" > " + record + "\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("CGO_ENABLED", "1")
	stamp := k8sbuild.LinkWith(k8sbuild.VersionLDFlags(Stamp(Options{})))
	if err := goBuild(context.Background(), io.Discard, t.TempDir(), "/out", []string{stamp}, "k8s.io/kubernetes/cmd/kube-scheduler"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(string(data))
	want := "CGO_ENABLED=0 GOWORK=off build -trimpath -gcflags=all=-dwarf=false -c=1 -ldflags=-s -w " + stamp + " -o /out/ k8s.io/kubernetes/cmd/kube-scheduler"
	if got != want {
		t.Errorf("the go command got\n  %s\nwant\n  %s", got, want)
	}
}

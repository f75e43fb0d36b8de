package build

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A static build must reach the compiler with cgo off, and an ordinary one
// must keep the host's setting: a fake go on PATH records what it got.
func TestGoBuildEnvironment(t *testing.T) {
	for _, static := range []bool{false, true} {
		bin := t.TempDir()
		record := filepath.Join(bin, "env")
		script := "#!/bin/sh\necho \"CGO_ENABLED=${CGO_ENABLED-unset} GOWORK=$GOWORK $*\" > " + record + "\n"
		if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		t.Setenv("CGO_ENABLED", "1")
		if err := goBuild(context.Background(), io.Discard, t.TempDir(), "/out", static, "k8s.io/kubernetes/cmd/kube-scheduler"); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(record)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSpace(string(data))
		want := "CGO_ENABLED=1 GOWORK=off build -trimpath -o /out/ k8s.io/kubernetes/cmd/kube-scheduler"
		if static {
			want = strings.Replace(want, "CGO_ENABLED=1", "CGO_ENABLED=0", 1)
		}
		if got != want {
			t.Errorf("static %v: the go command got\n  %s\nwant\n  %s", static, got, want)
		}
	}
}

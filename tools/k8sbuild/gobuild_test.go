package k8sbuild

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An idle build runs go, and so the compilers and linkers go starts, at
// the lowest CPU priority; any other build at the caller's.
func TestIdleBuildRunsAtTheLowestPriority(t *testing.T) {
	bin := t.TempDir()
	record := filepath.Join(bin, "nice")
	// The fake go writes its own niceness: field 19 of /proc/self/stat,
	// read by the shell that runs it.
	script := "#!/bin/sh\nset -- $(cat /proc/$$/stat)\necho ${19} > " + record + "\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, idle := range []bool{false, true} {
		g := GoBuild{ModuleDir: t.TempDir(), Packages: []string{"./x"}, OutDir: t.TempDir(), Who: "test", Quiet: true, Idle: idle, Log: io.Discard}
		if err := g.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(record)
		if err != nil {
			t.Fatal(err)
		}
		want := "0"
		if idle {
			want = "19"
		}
		if got := strings.TrimSpace(string(data)); got != want {
			t.Errorf("Idle %v: go ran at niceness %s; want %s", idle, got, want)
		}
	}
}

package k8sbuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ModuleDir asks go mod download in the module it is given, outside any
// workspace, and reads the folder, or the error, from its JSON. A fake go
// on PATH answers as the real one does.
func TestModuleDir(t *testing.T) {
	bin, root := t.TempDir(), t.TempDir()
	record := filepath.Join(bin, "args")
	script := `#!/bin/sh
echo "$(pwd) GOWORK=$GOWORK $*" > ` + record + `
case "$4" in
found@v1) echo '{"Path": "found", "Dir": "/cache/found@v1"}' ;;
broken@v1) echo '{"Path": "broken", "Error": "unknown revision v1"}'; exit 1 ;;
*) echo '{"Path": "empty"}' ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx := context.Background()
	dir, err := ModuleDir(ctx, root, "found@v1")
	if err != nil || dir != "/cache/found@v1" {
		t.Fatalf("ModuleDir(found@v1) = %q, %v; want /cache/found@v1", dir, err)
	}
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(data)), root+" GOWORK=off mod download -json found@v1"; got != want {
		t.Errorf("the go command ran as\n  %s\nwant\n  %s", got, want)
	}
	if _, err := ModuleDir(ctx, root, "broken@v1"); err == nil || !strings.Contains(err.Error(), "unknown revision v1") {
		t.Errorf("ModuleDir(broken@v1): %v, want go's own error", err)
	}
	if _, err := ModuleDir(ctx, root, "empty@v1"); err == nil || !strings.Contains(err.Error(), "gave no directory") {
		t.Errorf("ModuleDir(empty@v1): %v, want that it gave no directory", err)
	}
}

package k8sbuild

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// ModuleDir is where the Go module cache holds modVer ("path@version", or
// a bare path for the version the module at moduleRoot requires),
// downloading it through the proxy if it is not there yet.
func ModuleDir(ctx context.Context, moduleRoot, modVer string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", modVer)
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", modVer, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", modVer, err)
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s gave no directory", modVer)
	}
	return info.Dir, nil
}

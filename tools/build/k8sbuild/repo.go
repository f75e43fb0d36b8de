package k8sbuild

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is the module line FindRepoRoot looks for, so that nested
// modules (tools/build/k8sbin) are walked past.
const ModulePath = "github.com/draconform/draconform"

// Dirs resolves the repository and the binary cache every build shares:
// an empty repoRoot is found from the working directory, an empty cacheDir
// is <repoRoot>/.cache/k8s.
func Dirs(repoRoot, cacheDir string) (string, string, error) {
	if repoRoot == "" {
		root, err := FindRepoRoot()
		if err != nil {
			return "", "", err
		}
		repoRoot = root
	}
	if cacheDir == "" {
		cacheDir = filepath.Join(repoRoot, ".cache", "k8s")
	}
	return repoRoot, cacheDir, nil
}

// FindRepoRoot walks up from the working directory to the directory whose
// go.mod declares ModulePath.
func FindRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding repository root: %w", err)
	}
	for {
		if modulePathOf(filepath.Join(dir, "go.mod")) == ModulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod with module %s above the working directory", ModulePath)
		}
		dir = parent
	}
}

func modulePathOf(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

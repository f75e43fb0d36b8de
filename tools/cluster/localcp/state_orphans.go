package localcp

import (
	"fmt"
	"github.com/draconform/draconform/tools/cluster/localproc"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A control plane's private folder (its CA key, the admin token, etcd's data
// with every Secret) is removed by its clean stop. A run or `draconform up`
// killed outright takes etcd and the API server with it (they die with their
// parent) and leaves the folder: these find and remove such folders.

// stateGrace is how young a folder with no process is left alone: a cell
// writes its PKI and kubeconfig before it starts etcd.
const stateGrace = time.Minute

// OrphanStates lists the private folders of control planes in dir (where
// cells make them: the system's temporary folder unless Options.StateDir
// says otherwise) that no running process names on its command line.
func OrphanStates(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var out []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "draconform-") || !isState(path) {
			continue
		}
		if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < stateGrace {
			continue
		}
		if len(localproc.Naming(path)) == 0 {
			out = append(out, path)
		}
	}
	return out, nil
}

// isState says whether path is laid out as a cell's private folder: other
// draconform temporary folders (a build's scratch) are not touched.
func isState(path string) bool {
	for _, f := range []string{"kubeconfig", filepath.Join("pki", "tokens.csv")} {
		if _, err := os.Stat(filepath.Join(path, f)); err != nil {
			return false
		}
	}
	return true
}

// RemoveOrphanState removes a folder OrphanStates listed, checking again
// that it is one and that nothing uses it.
func RemoveOrphanState(path string) error {
	if !isState(path) {
		return fmt.Errorf("%s is not a control plane's private folder", path)
	}
	if procs := localproc.Naming(path); len(procs) > 0 {
		return fmt.Errorf("%s is in use by %s", path, strings.Join(procs, ", "))
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}

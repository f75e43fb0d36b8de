// Package privdir makes the private (0700) folders a run keeps credentials
// in, in the system's temporary folder, and finds those a killed run left.
// Each records its owner, the process that made it (pid and start time, so
// that a reused pid is not mistaken for it): a folder whose owner is gone is
// an orphan, unless its owner kept it on purpose (Keep).
package privdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Prefixes start the names of the folders this package makes: the run's
// kubeconfig copies, the kind provider's kubeconfigs, and draconform up's.
var Prefixes = []string{"draconform-run-", "draconform-kind-", "draconform-up-"}

const (
	ownerFile = ".owner"
	keptFile  = ".kept"
)

// unownedGrace is how old a folder with no owner record must be before it
// counts as an orphan: draconform versions before this one made them
// without a record, and one may still run.
const unownedGrace = 24 * time.Hour

// Make creates a private folder named prefix* in the temporary folder and
// records this process as its owner.
func Make(prefix string) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(selfOwner()+"\n"), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("recording the owner of %s: %w", dir, err)
	}
	return dir, nil
}

// Keep marks dir as left on purpose (a cluster kept after the run, whose
// kubeconfig the user still needs): it is never an orphan.
func Keep(dir string) error {
	return os.WriteFile(filepath.Join(dir, keptFile), []byte("kept by "+selfOwner()+"\n"), 0o600)
}

// Orphans lists the folders in tmp made by Make whose owner is gone, with
// why each counts as one.
func Orphans(tmp string) (map[string]string, error) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", tmp, err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if !e.IsDir() || !hasPrefix(e.Name()) {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		if why, orphan := orphaned(path); orphan {
			out[path] = why
		}
	}
	return out, nil
}

// OwnedBy lists the folders in tmp made by Make that process pid owns.
func OwnedBy(tmp string, pid int) []string {
	entries, _ := os.ReadDir(tmp)
	var out []string
	for _, e := range entries {
		if !e.IsDir() || !hasPrefix(e.Name()) {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		if rec, err := os.ReadFile(filepath.Join(path, ownerFile)); err == nil && ownerPID(string(rec)) == pid {
			out = append(out, path)
		}
	}
	return out
}

// RemoveOrphan removes a folder Orphans listed, checking again that it is
// one.
func RemoveOrphan(path string) error {
	if !hasPrefix(filepath.Base(path)) {
		return fmt.Errorf("%s is not a run's private folder", path)
	}
	if why, orphan := orphaned(path); !orphan {
		return fmt.Errorf("%s is left alone: %s", path, why)
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}

// orphaned says whether path is an orphan, and why or why not.
func orphaned(path string) (string, bool) {
	if _, err := os.Stat(filepath.Join(path, keptFile)); err == nil {
		return "kept on purpose (a kept cluster's kubeconfig)", false
	}
	rec, err := os.ReadFile(filepath.Join(path, ownerFile))
	if errors.Is(err, os.ErrNotExist) {
		info, err := os.Stat(path)
		if err != nil {
			return err.Error(), false
		}
		if age := time.Since(info.ModTime()); age < unownedGrace {
			return fmt.Sprintf("no owner recorded, and changed %s ago (an earlier draconform may still use it)", age.Round(time.Second)), false
		}
		return "no owner recorded, untouched for a day", true
	}
	if err != nil {
		return err.Error(), false
	}
	owner := strings.TrimSpace(string(rec))
	if alive(owner) {
		return "its owner, process " + owner + ", runs", false
	}
	return "its owner, process " + owner + ", is gone", true
}

func hasPrefix(name string) bool {
	for _, p := range Prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

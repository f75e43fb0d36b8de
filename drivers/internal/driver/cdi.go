package driver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/apimachinery/pkg/types"
)

// The specs use nothing newer than CDI 0.3.0, the oldest version every CDI
// reader (containerd 1.7+, CRI-O) accepts: only env edits, a class without
// dots, and device names that start with a letter (0.5.0 would be needed
// for a leading digit, which a bare claim UID can have).
const (
	cdiVersion = "0.3.0"
	cdiClass   = "claim"
	cdiKind    = DriverName + "/" + cdiClass
)

// cdiSpec is the part of the CDI spec format this driver writes; a
// dependency on the CDI module would bring nothing else that is needed.
type cdiSpec struct {
	Version string      `json:"cdiVersion"`
	Kind    string      `json:"kind"`
	Devices []cdiDevice `json:"devices"`
}

type cdiDevice struct {
	Name           string            `json:"name"`
	ContainerEdits cdiContainerEdits `json:"containerEdits"`
}

type cdiContainerEdits struct {
	Env []string `json:"env,omitempty"`
}

// cdiDeviceName makes CDI device names unique across claims, as the runtime
// requires, and never reused, so runtimes that cache specs cannot hit a
// stale entry.
func cdiDeviceName(claimUID types.UID, i int) string {
	return "claim-" + string(claimUID) + "-" + strconv.Itoa(i)
}

// cdiDeviceID is the fully qualified name the kubelet hands to the runtime.
func cdiDeviceID(name string) string {
	return cdiKind + "=" + name
}

// cdiDir is the directory of the spec files, one per claim.
type cdiDir string

// specPath follows CDI's naming of transient specs: <vendor>-<class>_<id>.json.
func (dir cdiDir) specPath(claimUID types.UID) (string, error) {
	if !isFileNameSafe(string(claimUID)) {
		return "", fmt.Errorf("claim UID %q cannot be part of a file name", claimUID)
	}
	return filepath.Join(string(dir), DriverName+"-"+cdiClass+"_"+string(claimUID)+".json"), nil
}

// isFileNameSafe guards against a UID that would escape the CDI directory;
// Kubernetes UIDs only use these characters.
func isFileNameSafe(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// write replaces the claim's spec atomically: the runtime watches the
// directory and must never read a half-written file. The temporary name does
// not end in .json, so the runtime ignores it.
func (dir cdiDir) write(claimUID types.UID, spec cdiSpec) error {
	path, err := dir.specPath(claimUID)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode CDI spec: %w", err)
	}
	tmp, err := os.CreateTemp(string(dir), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write CDI spec: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this finds nothing
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write CDI spec: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write CDI spec: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write CDI spec: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write CDI spec: %w", err)
	}
	return nil
}

// remove deletes the claim's spec; a spec that is already gone is fine,
// because the kubelet repeats unprepare calls after restarts.
func (dir cdiDir) remove(claimUID types.UID) error {
	path, err := dir.specPath(claimUID)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove CDI spec: %w", err)
	}
	return nil
}

package localnode

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// fixedHostPaths are the folders a node makes outside its own, since
// neither program lets them move: the kubelet's device plugin folder
// (k8s.io/kubelet's DevicePluginPath, where every kubelet serves
// kubelet.sock and keeps its checkpoint whatever its --root-dir), the
// folder of its links to container logs (the kubelet package's
// ContainerLogsDir, which no flag or setting moves; --pod-logs-dir moves
// only the logs, and each node removes its links as it stops), and
// libcni's cache of results, which containerd does not configure.
// /run/mount is libmount's: the kubelet's mount(8) keeps its table in the
// node's folder (kubeletEnv), and the folder is here for a mount(8) that
// does not read LIBMOUNT_UTAB. Parents come before their children.
var fixedHostPaths = []string{"/var/lib/kubelet", "/var/lib/kubelet/device-plugins", "/var/lib/cni", "/var/lib/cni/results", "/var/log/containers", "/run/mount"}

// kubeletDevicePluginFiles are what the kubelet leaves in its device
// plugin folder when it stops: it never removes its socket.
var kubeletDevicePluginFiles = []string{"kubelet.sock", "kubelet_internal_checkpoint"}

func (k kernelState) pathsRecord() string { return filepath.Join(k.root, "host-paths.json") }

func (k kernelState) hostPath(p string) string { return filepath.Join(k.hostRoot, p) }

// recordAbsentPaths notes which fixed folders the machine lacks before
// the first node, so that the last to stop removes them; one that was
// there is someone else's (a real kubelet's) and stays.
func (k kernelState) recordAbsentPaths() error {
	if k.hostRoot == "" {
		return nil // a state that names no host root leaves its folders alone
	}
	absent := []string{}
	for _, p := range fixedHostPaths {
		if _, err := os.Lstat(k.hostPath(p)); errors.Is(err, os.ErrNotExist) {
			absent = append(absent, p)
		}
	}
	data, err := json.Marshal(absent)
	if err != nil {
		return err
	}
	if err := os.WriteFile(k.pathsRecord(), data, 0o600); err != nil {
		return fmt.Errorf("recording the host's folders: %w", err)
	}
	return nil
}

// removeMadePaths removes the fixed folders the record says were absent,
// children first, and in the device plugin folder only the kubelet's own
// files; a folder holding anything else stays. It says what it removed
// and what it left.
func (k kernelState) removeMadePaths() ([]string, error) {
	if k.hostRoot == "" {
		return nil, nil
	}
	data, err := os.ReadFile(k.pathsRecord())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // recorded by a draconform that did not record folders
	}
	if err != nil {
		return nil, err
	}
	var absent []string
	if err := json.Unmarshal(data, &absent); err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.pathsRecord(), err)
	}
	var removed []string
	var errs []error
	for _, p := range slices.Backward(fixedHostPaths) {
		if !slices.Contains(absent, p) {
			continue
		}
		dir := k.hostPath(p)
		if p == "/var/lib/kubelet/device-plugins" {
			for _, f := range kubeletDevicePluginFiles {
				if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		}
		switch err := syscall.Rmdir(dir); {
		case err == nil:
			removed = append(removed, "removed "+p)
		case errors.Is(err, syscall.ENOENT):
		case errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST):
			// What else is in it is not the nodes' to remove.
			var left []string
			if entries, err := os.ReadDir(dir); err == nil {
				for _, e := range entries {
					left = append(left, e.Name())
				}
			}
			removed = append(removed, fmt.Sprintf("left %s, made by a node, since it holds %v", p, left))
		default:
			errs = append(errs, fmt.Errorf("removing %s: %w", p, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return removed, err
	}
	return removed, os.Remove(k.pathsRecord())
}

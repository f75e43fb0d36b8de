package localnode

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// kubeletKernelSettings are the kernel settings a kubelet without
// protectKernelDefaults writes at start (kubelet's setupKernelTunables):
// left as it leaves them, any kernel oops reboots the machine. The node
// records them before its kubelet starts and the last node to stop puts
// them back; protectKernelDefaults is no way out, since that kubelet
// refuses to start on a host whose values differ.
var kubeletKernelSettings = []string{
	"vm.overcommit_memory",
	"vm.panic_on_oom",
	"kernel.panic",
	"kernel.panic_on_oops",
	"kernel.keys.root_maxkeys",
	"kernel.keys.root_maxbytes",
}

// kernelState is where the host's settings are recorded and read: the
// machine's own, or a test's.
type kernelState struct {
	// root holds the node folders and the record.
	root string
	// procSys is /proc/sys.
	procSys string
	// hostRoot is "/", under which fixedHostPaths are (node_hostpaths.go):
	// the folders a node makes outside its own are recorded and removed
	// with the settings.
	hostRoot string
}

var hostKernel = kernelState{root: StateRoot, procSys: "/proc/sys", hostRoot: "/"}

func (k kernelState) recordPath() string { return filepath.Join(k.root, "kernel-settings.json") }

// locked runs f holding an exclusive lock on root itself, so that a node's
// record and another's restore do not interleave, and no lock file is left.
// The last node's restore may remove root while this waits for the lock:
// then root is made again and locked afresh. Only a record makes root; a
// restore without it has nothing to do.
func (k kernelState) locked(makeRoot bool, f func() error) error {
	for attempt := 1; ; attempt++ {
		if makeRoot {
			if err := makeStateRoot(k.root); err != nil {
				return err
			}
		}
		dir, err := os.Open(k.root)
		if errors.Is(err, os.ErrNotExist) && !makeRoot {
			return nil
		}
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && attempt < 3 {
				continue
			}
			return err
		}
		if err := syscall.Flock(int(dir.Fd()), syscall.LOCK_EX); err != nil {
			dir.Close()
			return fmt.Errorf("locking %s: %w", k.root, err)
		}
		if !sameDir(dir, k.root) && attempt < 3 {
			dir.Close() // closing releases the lock
			continue
		}
		err = f()
		dir.Close()
		return err
	}
}

func (k kernelState) path(name string) string {
	return filepath.Join(k.procSys, strings.ReplaceAll(name, ".", "/"))
}

// record saves the host's settings unless a node that still runs saved
// them first (then they are already the kubelet's).
func (k kernelState) record() error {
	return k.locked(true, func() error {
		if _, err := os.Stat(k.recordPath()); err == nil {
			return nil
		}
		saved := map[string]string{}
		for _, name := range kubeletKernelSettings {
			v, err := os.ReadFile(k.path(name))
			if err != nil {
				// A setting this kernel lacks is one the kubelet cannot set.
				continue
			}
			saved[name] = strings.TrimSpace(string(v))
		}
		data, err := json.MarshalIndent(saved, "", "  ")
		if err != nil {
			return err
		}
		// The folders first: the settings' record is what says a record
		// is there.
		if err := k.recordAbsentPaths(); err != nil {
			return err
		}
		if err := os.WriteFile(k.recordPath(), data, 0o600); err != nil {
			return fmt.Errorf("recording the host's kernel settings: %w", err)
		}
		return nil
	})
}

// restore puts the recorded settings back once no node is left under root
// (a node's folder lives from its start to the end of its stop), removes
// the fixed folders the nodes made, and says what it changed.
func (k kernelState) restore() ([]string, error) {
	var changed []string
	err := k.locked(false, func() error {
		data, err := os.ReadFile(k.recordPath())
		if errors.Is(err, os.ErrNotExist) {
			// A node that failed before it recorded may have made the
			// root.
			removed, err := k.removeRootIfMade()
			changed = removed
			return err
		}
		if err != nil {
			return err
		}
		entries, err := os.ReadDir(k.root)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() && nodeIDPattern.MatchString(e.Name()) {
				return nil
			}
		}
		saved := map[string]string{}
		if err := json.Unmarshal(data, &saved); err != nil {
			return fmt.Errorf("reading %s: %w", k.recordPath(), err)
		}
		var errs []error
		for _, name := range kubeletKernelSettings {
			want, ok := saved[name]
			if !ok {
				continue
			}
			cur, err := os.ReadFile(k.path(name))
			if err == nil && strings.TrimSpace(string(cur)) == want {
				continue
			}
			if err := os.WriteFile(k.path(name), []byte(want+"\n"), 0o644); err != nil {
				errs = append(errs, fmt.Errorf("restoring %s to %s: %w", name, want, err))
				continue
			}
			changed = append(changed, fmt.Sprintf("%s=%s", name, want))
		}
		removed, err := k.removeMadePaths()
		changed = append(changed, removed...)
		if err := errors.Join(append(errs, err)...); err != nil {
			return err
		}
		if err := os.Remove(k.recordPath()); err != nil {
			return err
		}
		removed, err = k.removeRootIfMade()
		changed = append(changed, removed...)
		return err
	})
	return changed, err
}

// RestoreHostKernel writes back the kernel settings the first node
// recorded, if no node is left: what a kill between a node's stop and its
// restore leaves for `cleanup --nodes`. It says what it changed.
func RestoreHostKernel() ([]string, error) { return hostKernel.restore() }

// HostKernelRecorded says whether a record of the host's settings waits to
// be written back.
func HostKernelRecorded() bool {
	_, err := os.Stat(hostKernel.recordPath())
	return err == nil
}

package localnode

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"time"
)

// A node's id names its folder, cgroups, CNI network and bridge. It is
// drawn from 64 random bits, and its folder is created exclusively and
// locked (flock on the folder) for as long as the node runs: two nodes never
// share a folder, a node never adopts one a killed run left, and `cleanup
// --nodes` tells a node still starting or running from an orphan.

// nodeIDPattern matches a node's id: 16 hex digits; 6 for the nodes of versions
// before, so that their leftovers are still found.
var nodeIDPattern = regexp.MustCompile(`^([0-9a-f]{16}|[0-9a-f]{6})$`)

// newNodeID draws a node id.
func newNodeID() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("reading crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}

// IsID says whether name is a node's id, as its folder under StateRoot is
// named.
func IsID(name string) bool { return nodeIDPattern.MatchString(name) }

// bridgeName is the CNI bridge of node id: an interface name has at most 15
// bytes, so it takes the id's first 44 bits.
func bridgeName(id string) string {
	const room = 15 - len(bridgePrefix)
	if len(id) > room {
		id = id[:room]
	}
	return bridgePrefix + id
}

// nodeGrace is how young a node folder is left alone by clean-up whatever
// its lock says: a node of an earlier version holds no lock, and is not
// seen in use until its containerd starts.
const nodeGrace = time.Minute

// claimNodeDir creates dir, which must not exist, and returns it locked;
// the lock is held until the returned file is closed or the process ends.
func claimNodeDir(dir string) (*os.File, error) {
	// The last node of another run may remove the root between its making
	// and the node's folder: then it is made again.
	var err error
	for range 3 {
		if err = makeStateRoot(filepath.Dir(dir)); err != nil {
			return nil, err
		}
		if err = os.Mkdir(dir, 0o755); !errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("creating the node's folder (another node's, or a killed run's, if it exists): %w", err)
	}
	lock, err := lockNodeDir(dir)
	if err != nil {
		return nil, err
	}
	if lock == nil {
		return nil, fmt.Errorf("the node's new folder %s is locked by another process", dir)
	}
	return lock, nil
}

// lockNodeDir takes dir's lock without waiting: nil, nil if another
// process holds it.
func lockNodeDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("opening %s to lock it: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return f, nil
}

// nodeBusy says why the node folder dir must be left alone, or "" if it
// may be removed: its lock is held (a node starting or running), it is
// younger than grace, or a containerd or kubelet names it.
func nodeBusy(dir string, grace time.Duration) string {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Sprintf("cannot look at it: %v", err)
	}
	if age := time.Since(info.ModTime()); age < grace {
		return fmt.Sprintf("changed %s ago, within the %s a node may take to start", age.Round(time.Second), grace)
	}
	lock, err := lockNodeDir(dir)
	if err != nil {
		return err.Error()
	}
	if lock == nil {
		return "its lock is held by the draconform that runs it"
	}
	lock.Close()
	if nodeInUse(dir) {
		return "a running containerd or kubelet names it"
	}
	return ""
}

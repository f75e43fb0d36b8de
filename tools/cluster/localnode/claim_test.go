package localnode

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNodeIDsDrawFromTheFullRandomSpace(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		n := New("cell", t.TempDir(), nil, nil)
		if !nodeIDPattern.MatchString(n.id) || len(n.id) != 16 {
			t.Fatalf("node id %q is not 16 hex digits", n.id)
		}
		if seen[n.id] {
			t.Fatalf("node id %q drawn twice in 1000", n.id)
		}
		seen[n.id] = true
		if len(n.bridge) > 15 || n.bridge[:4] != bridgePrefix || n.bridge[4:] != n.id[:11] {
			t.Fatalf("bridge %q of node %s: want %s and the id's first 11 digits, 15 bytes at most", n.bridge, n.id, bridgePrefix)
		}
	}
	// A node of an earlier version is still recognised, and its bridge
	// named as it was.
	if !nodeIDPattern.MatchString("0a1b2c") || bridgeName("0a1b2c") != "dcbr0a1b2c" {
		t.Errorf("an earlier node's id 0a1b2c: matches %v, bridge %q", nodeIDPattern.MatchString("0a1b2c"), bridgeName("0a1b2c"))
	}
}

// TestNodeFolderIsClaimedExclusively: a second node drawn with a folder
// that exists fails to start, and its stop removes nothing of the first.
func TestNodeFolderIsClaimedExclusively(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "root", "0123456789abcdef")
	first, err := claimNodeDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if err := os.WriteFile(filepath.Join(dir, "state"), []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	if lock, err := claimNodeDir(dir); err == nil {
		lock.Close()
		t.Fatal("a second node claimed a folder that exists")
	}
	second := &Node{name: "second", id: "0123456789abcdef", layout: nodeLayout{dir: dir}, cgroupRoot: "draconform-0123456789abcdef", bridge: bridgeName("0123456789abcdef")}
	if err := second.Stop(); err != nil {
		t.Errorf("stop of a node that never had its folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err != nil {
		t.Errorf("the stop of a node that failed to claim its folder removed the first node's: %v", err)
	}
	// A killed run's folder holds no lock: it is not adopted either.
	first.Close()
	if lock, err := claimNodeDir(dir); err == nil {
		lock.Close()
		t.Error("a node claimed a folder a killed run left")
	}
}

// TestOrphanNodesSparesNodesStartingOrRunning: only a folder older than the
// grace and unlocked is an orphan.
func TestOrphanNodesSparesNodesStartingOrRunning(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-2 * nodeGrace)
	mk := func(id string, age time.Time) string {
		d := filepath.Join(root, id)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d, age, age); err != nil {
			t.Fatal(err)
		}
		return d
	}
	mk("aaaaaaaaaaaaaaaa", old)           // a killed run's node
	mk("bbbbbbbbbbbbbbbb", time.Now())    // a node that has just begun
	locked := mk("cccccccccccccccc", old) // a node that runs, for a while now
	mk("0a1b2c", old)                     // an earlier version's node
	mk("not-a-node", old)
	lock, err := lockNodeDir(locked)
	if err != nil || lock == nil {
		t.Fatalf("locking %s: %v", locked, err)
	}
	defer lock.Close()

	got, err := orphanNodesIn(root, nodeGrace)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0a1b2c", "aaaaaaaaaaaaaaaa"}; !slices.Equal(got, want) {
		t.Errorf("orphans = %q, want %q", got, want)
	}
	// What a clean-up spares, it can name, with why.
	_, spared, err := nodesIn(root, nodeGrace)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(spared)); !slices.Equal(got, []string{"bbbbbbbbbbbbbbbb", "cccccccccccccccc"}) {
		t.Errorf("spared = %q, want the node just begun and the locked one", got)
	}
	if !strings.Contains(spared["bbbbbbbbbbbbbbbb"], "within the") {
		t.Errorf("why the new node is spared = %q, want it to name the start grace", spared["bbbbbbbbbbbbbbbb"])
	}
	if why := nodeBusy(locked, nodeGrace); why == "" {
		t.Error("a locked node folder is not busy")
	} else {
		t.Logf("locked: %s", why)
	}
	// Its lock gone (its draconform ended), the node is an orphan.
	lock.Close()
	if got, _ := orphanNodesIn(root, nodeGrace); !slices.Contains(got, "cccccccccccccccc") {
		t.Errorf("orphans after the lock went = %q, want cccccccccccccccc among them", got)
	}
}

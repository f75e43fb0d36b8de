package localnode

import (
	"fmt"
	"github.com/draconform/draconform/tools/cluster/localproc"
	"os"
	"path/filepath"
	"time"
)

// A run killed outright (SIGKILL, a crash, a lost machine) takes its
// kubelets and containerds with it (they die with their parent), but the
// shims, containers, mounts, cgroups and bridges of their nodes stay. These
// find and remove such orphaned nodes, by their state directories.

// OrphanNodes lists the ids of nodes under StateRoot that nothing
// runs: no draconform holds their lock, no containerd or kubelet uses
// them, and they are older than a node's start.
func OrphanNodes() ([]string, error) {
	orphans, _, err := nodesIn(StateRoot, nodeGrace)
	return orphans, err
}

// NodesLeftAlone are the node folders under StateRoot that a clean-up
// spares, each with why (running, or changed within the time a node takes
// to start), so that it can say what it did not remove.
func NodesLeftAlone() (map[string]string, error) {
	_, spared, err := nodesIn(StateRoot, nodeGrace)
	return spared, err
}

func orphanNodesIn(root string, grace time.Duration) ([]string, error) {
	orphans, _, err := nodesIn(root, grace)
	return orphans, err
}

// nodesIn sorts the node folders under root into orphans and the spared,
// with why each is spared.
func nodesIn(root string, grace time.Duration) (orphans []string, spared map[string]string, err error) {
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing %s: %w", root, err)
	}
	spared = map[string]string{}
	for _, e := range entries {
		if !e.IsDir() || !nodeIDPattern.MatchString(e.Name()) {
			continue
		}
		if why := nodeBusy(filepath.Join(root, e.Name()), grace); why != "" {
			spared[e.Name()] = why
			continue
		}
		orphans = append(orphans, e.Name())
	}
	return orphans, spared, nil
}

// nodeInUse says whether a containerd or kubelet names dir on its command
// line; a shim alone does not count, since shims outlive a killed run.
func nodeInUse(dir string) bool {
	for _, prog := range localproc.Naming(dir) {
		if prog == "containerd" || prog == "kubelet" {
			return true
		}
	}
	return false
}

// orphan is a node known only by its id, as a killed run left it.
func orphan(id string) *Node {
	return &Node{
		name:       "orphaned node " + id,
		id:         id,
		layout:     nodeLayout{dir: filepath.Join(StateRoot, id)},
		cgroupRoot: "draconform-" + id,
		bridge:     bridgeName(id),
	}
}

// RemoveOrphanNode removes what the orphaned node id left on the machine.
func RemoveOrphanNode(id string) error {
	if !nodeIDPattern.MatchString(id) {
		return fmt.Errorf("%q is not a node id", id)
	}
	dir := filepath.Join(StateRoot, id)
	if why := nodeBusy(dir, nodeGrace); why != "" {
		return fmt.Errorf("node %s is left alone: %s", id, why)
	}
	// Held while it goes, so that no node starts in it meanwhile.
	lock, err := lockNodeDir(dir)
	if err != nil {
		return err
	}
	if lock == nil {
		return fmt.Errorf("node %s is left alone: its lock was taken meanwhile", id)
	}
	n := orphan(id)
	n.lock = lock
	return n.Stop()
}

// OrphanLeftovers describes what of the orphaned node id is on the machine.
func OrphanLeftovers(id string) []string { return orphan(id).leftovers() }

package localcp

import (
	"fmt"
	"github.com/draconform/draconform/tools/cluster/localproc"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A run killed outright (SIGKILL, a crash, a lost machine) takes its
// kubelets and containerds with it (they die with their parent), but the
// shims, containers, mounts, cgroups and bridges of their nodes stay. These
// find and remove such orphaned nodes, by their state directories.

// OrphanNodes lists the ids of nodes under NodeStateRoot that nothing
// runs: no draconform holds their lock, no containerd or kubelet uses
// them, and they are older than a node's start.
func OrphanNodes() ([]string, error) { return orphanNodesIn(NodeStateRoot, nodeGrace) }

func orphanNodesIn(root string, grace time.Duration) ([]string, error) {
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", root, err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || !nodeID.MatchString(e.Name()) {
			continue
		}
		if nodeBusy(filepath.Join(root, e.Name()), grace) == "" {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// nodeInUse says whether a containerd or kubelet names dir on its command
// line; a shim alone does not count, since shims outlive a killed run.
func nodeInUse(dir string) bool {
	for _, prog := range processesNaming(dir) {
		if prog == "containerd" || prog == "kubelet" {
			return true
		}
	}
	return false
}

// processesNaming lists the programs (their argv[0]'s base names) of the
// running processes, this one aside, that name a path under dir on their
// command line.
func processesNaming(dir string) []string {
	procs, _ := localproc.OtherProcesses()
	var out []string
	for _, p := range procs {
		if slices.ContainsFunc(p.Args, func(a string) bool { return strings.Contains(a, dir+"/") }) {
			out = append(out, filepath.Base(p.Args[0]))
		}
	}
	return out
}

// orphan is a node known only by its id, as a killed run left it.
func orphan(id string) *node {
	return &node{
		name:       "orphaned node " + id,
		id:         id,
		layout:     nodeLayout{dir: filepath.Join(NodeStateRoot, id)},
		cgroupRoot: "draconform-" + id,
		bridge:     bridgeName(id),
	}
}

// RemoveOrphanNode removes what the orphaned node id left on the machine.
func RemoveOrphanNode(id string) error {
	if !nodeID.MatchString(id) {
		return fmt.Errorf("%q is not a node id", id)
	}
	dir := filepath.Join(NodeStateRoot, id)
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
	return n.stop()
}

// OrphanLeftovers describes what of the orphaned node id is on the machine.
func OrphanLeftovers(id string) []string { return orphan(id).leftovers() }

package bundle

import (
	"encoding/json"
	"fmt"
	"github.com/draconform/draconform/tools/internal/fsutil"
	"path/filepath"
)

// AccessFile records what the run's identity could do to the cluster it
// wrote to: the run writes it beside its reports, and a bundle carries it.
const AccessFile = "access.json"

// Where a run's cluster came from (Access.Cluster).
const (
	// ClusterStarted: the run started the cluster it wrote to (an embedded
	// control plane, kind), with credentials of its own.
	ClusterStarted = "started by the run"
	// ClusterVisited: a cluster the run did not start (a kubeconfig).
	ClusterVisited = "visited"
)

// Access is what the preflight found of a run's cluster.
type Access struct {
	Cluster string `json:"cluster"`
	// Confined is what the preflight found of a visited cluster: yes
	// (draconform rbac's current policy refuses writes to what the run did
	// not create), older (an earlier version of it), no, unknown.
	Confined string `json:"confined,omitempty"`
	// Unconfined: the run wrote to a visited cluster that today's policy
	// does not confine, because --allow-unconfined said so.
	Unconfined bool `json:"unconfined"`
}

// WriteAccess records a in the run's folder.
func WriteAccess(runDir string, a Access) error {
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", AccessFile, err)
	}
	if err := fsutil.WriteNew(filepath.Join(runDir, AccessFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("recording the run's access: %w", err)
	}
	return nil
}

// ReadAccess reads the record of a run's folder or a bundle's (as a
// bundle's file is read: regular, capped).
func ReadAccess(dir string) (Access, error) {
	var a Access
	if err := readJSON(dir, AccessFile, &a); err != nil {
		return a, err
	}
	if a.Cluster != ClusterStarted && a.Cluster != ClusterVisited {
		return a, fmt.Errorf("%s: cluster %q, want %q or %q", AccessFile, a.Cluster, ClusterStarted, ClusterVisited)
	}
	return a, nil
}

// unconfinedNote is what the README says of an unconfined run; verify
// checks that a bundle whose record says so says it.
const unconfinedNote = "UNCONFINED"

func accessSection(a Access) string {
	switch {
	case a.Unconfined:
		return "**" + unconfinedNote + ".** The run wrote to a cluster where draconform's admission policy did not confine its writes " +
			"(preflight found: " + a.Confined + "), because `--allow-unconfined` said so: its credentials could have changed objects " +
			"it did not create. The outcomes are as valid; what the run may have done to the cluster is not held by the cluster.\n\n"
	case a.Cluster == ClusterVisited:
		return "The run's writes were confined by draconform's admission policy (`draconform rbac`) to the objects it created.\n\n"
	}
	return "The run started the cluster it tested, and discarded it.\n\n"
}

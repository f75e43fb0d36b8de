package providers

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/cluster/localcp"
	"github.com/draconform/draconform/tools/cluster/localnode"
	"github.com/draconform/draconform/tools/host/engine"
	"github.com/draconform/draconform/tools/internal/privdir"
)

// SweepHost removes from this machine what killed runs of every provider
// left: embedded nodes (processes, mounts, cgroups, bridges, state) and the
// kernel settings their kubelets changed, a docker.io install's service
// guard, control planes' private folders in tmp, and runs' and kind
// clusters' private folders in tmp. Only what no running draconform owns is
// touched. It says on w what it removes (or, dry, would remove); the error
// joins every failure, and what could be removed is removed.
func SweepHost(w io.Writer, tmp string, dry bool) error {
	var errs []error
	errs = append(errs, sweepNodes(w, dry)...)
	errs = append(errs, sweepKernel(w, dry)...)
	errs = append(errs, sweepPolicy(w, dry)...)
	errs = append(errs, sweepStates(w, tmp, dry)...)
	errs = append(errs, sweepRunFolders(w, tmp, dry)...)
	return errors.Join(errs...)
}

func sweepNodes(w io.Writer, dry bool) []error {
	ids, err := localnode.OrphanNodes()
	if err != nil {
		return []error{err}
	}
	if len(ids) == 0 {
		fmt.Fprintf(w, "no orphaned node under %s\n", localnode.StateRoot)
	}
	// A node a killed run left a moment ago looks like one starting: say
	// so, or the clean-up would seem to have found nothing.
	spared, err := localnode.NodesLeftAlone()
	if err != nil {
		return []error{err}
	}
	for _, id := range slices.Sorted(maps.Keys(spared)) {
		fmt.Fprintf(w, "left node %s alone: %s\n", id, spared[id])
	}
	var errs []error
	for _, id := range ids {
		left := strings.Join(localnode.OrphanLeftovers(id), "; ")
		if dry {
			fmt.Fprintf(w, "would remove node %s: %s\n", id, left)
			continue
		}
		if err := localnode.RemoveOrphanNode(id); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(w, "removed node %s: %s\n", id, left)
	}
	return errs
}

func sweepKernel(w io.Writer, dry bool) []error {
	if !localnode.HostKernelRecorded() {
		return nil
	}
	if dry {
		fmt.Fprintln(w, "would write back the host's kernel settings a node's kubelet changed, once no node is left")
		return nil
	}
	restored, err := localnode.RestoreHostKernel()
	if err != nil {
		return []error{err}
	}
	if len(restored) > 0 {
		fmt.Fprintf(w, "wrote back the host's kernel settings: %s\n", strings.Join(restored, " "))
	}
	return nil
}

func sweepPolicy(w io.Writer, dry bool) []error {
	if dry {
		if engine.HasStalePolicy(engine.Options{}) {
			fmt.Fprintln(w, "would remove /usr/sbin/policy-rc.d, left by a killed install of docker.io")
		}
		return nil
	}
	removed, err := engine.RemoveStalePolicy(engine.Options{})
	if err != nil {
		return []error{err}
	}
	if removed {
		fmt.Fprintln(w, "removed /usr/sbin/policy-rc.d, left by a killed install of docker.io (it kept every service from starting)")
	}
	return nil
}

func sweepStates(w io.Writer, tmp string, dry bool) []error {
	states, err := localcp.OrphanStates(tmp)
	if err != nil {
		return []error{err}
	}
	if len(states) == 0 {
		fmt.Fprintf(w, "no orphaned control-plane folder in %s\n", tmp)
	}
	var errs []error
	for _, path := range states {
		if dry {
			fmt.Fprintf(w, "would remove control-plane folder %s (PKI, admin token, etcd data)\n", path)
			continue
		}
		if err := localcp.RemoveOrphanState(path); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(w, "removed control-plane folder %s (PKI, admin token, etcd data)\n", path)
	}
	return errs
}

func sweepRunFolders(w io.Writer, tmp string, dry bool) []error {
	orphans, err := privdir.Orphans(tmp)
	if err != nil {
		return []error{err}
	}
	if len(orphans) == 0 {
		fmt.Fprintf(w, "no orphaned run or kind folder in %s\n", tmp)
	}
	var errs []error
	for _, path := range slices.Sorted(maps.Keys(orphans)) {
		if dry {
			fmt.Fprintf(w, "would remove run folder %s (kubeconfigs; %s)\n", path, orphans[path])
			continue
		}
		if err := privdir.RemoveOrphan(path); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(w, "removed run folder %s (kubeconfigs; %s)\n", path, orphans[path])
	}
	return errs
}

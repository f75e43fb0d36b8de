package cli

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/localcp"
	"github.com/draconform/draconform/tools/host/engine"
	"github.com/draconform/draconform/tools/internal/privdir"
	"github.com/spf13/pflag"
)

// Kinds draconform creates outside namespaces; everything namespaced lives in
// a case namespace and goes with it.
var cleanupResources = []schema.GroupVersionResource{
	{Version: "v1", Resource: "namespaces"},
	{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"},
	{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"},
	{Version: "v1", Resource: "nodes"},
}

func cleanupCmd(fs *pflag.FlagSet) action {
	path := fs.String("kubeconfig", "", "cluster to clean (default: $KUBECONFIG, then ~/.kube/config)")
	kctx := fs.String("context", "", "kubeconfig context")
	run := fs.String("run", "", "delete only this run's objects (default: every draconform run's)")
	dry := fs.Bool("dry-run", false, "list what would be deleted, delete nothing")
	nodes := fs.Bool("nodes", false, "instead: remove from this machine what a killed run left: its embedded nodes (processes, mounts, cgroups, bridges, state), its control planes' private folders (PKI, admin token, etcd data) and its runs' and kind clusters' private folders (kubeconfigs)")
	return func(ctx context.Context, args []string, s Streams) int {
		if *nodes {
			return cleanupNodes(s, *dry)
		}
		p := &kubeconfig.Provider{Path: *path, Context: *kctx}
		// No credentials is a command line to fix, as for run: exit 2.
		if _, err := p.Credentials(); err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			return 2
		}
		c, err := p.Start(ctx, "cleanup", nil)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			return 1
		}
		dyn, err := dynamic.NewForConfig(c.RESTConfig())
		if err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			return 1
		}
		selector := steps.RunLabel
		if *run != "" {
			selector = steps.RunLabel + "=" + *run
		}
		failed := false
		total := 0
		for _, gvr := range cleanupResources {
			list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if err != nil {
				fmt.Fprintf(s.Err, "listing %s: %v\n", gvr.Resource, err)
				failed = true
				continue
			}
			for _, item := range list.Items {
				total++
				if gvr.Resource == "namespaces" && !*dry {
					// Pods on draconform's kubelet-less nodes would wait forever
					// for a graceful deletion nobody confirms.
					pods := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace(item.GetName())
					if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{}); err != nil {
						fmt.Fprintf(s.Err, "deleting pods in %s: %v\n", item.GetName(), err)
						failed = true
					}
				}
				verb := "deleted"
				if ts := item.GetDeletionTimestamp(); ts != nil {
					fmt.Fprintf(s.Out, "terminating %s/%s since %s (run %s)\n", gvr.Resource, item.GetName(), ts.Format("15:04:05"), item.GetLabels()[steps.RunLabel])
					continue
				}
				if *dry {
					verb = "would delete"
				} else if err := dyn.Resource(gvr).Delete(ctx, item.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					fmt.Fprintf(s.Err, "deleting %s %s: %v\n", gvr.Resource, item.GetName(), err)
					failed = true
					continue
				}
				fmt.Fprintf(s.Out, "%s %s/%s (run %s)\n", verb, gvr.Resource, item.GetName(), item.GetLabels()[steps.RunLabel])
			}
		}
		fmt.Fprintf(s.Out, "%d objects carry the label %s\n", total, selector)
		if failed {
			return 1
		}
		return 0
	}
}

// cleanupNodes removes the embedded nodes and control-plane folders no
// running draconform owns.
func cleanupNodes(s Streams, dry bool) int {
	code := 0
	ids, err := localcp.OrphanNodes()
	if err != nil {
		fmt.Fprintln(s.Err, "draconform cleanup:", err)
		code = 1
	}
	if err == nil && len(ids) == 0 {
		fmt.Fprintf(s.Out, "no orphaned node under %s\n", localcp.NodeStateRoot)
	}
	for _, id := range ids {
		left := localcp.OrphanLeftovers(id)
		if dry {
			fmt.Fprintf(s.Out, "would remove node %s: %s\n", id, strings.Join(left, "; "))
			continue
		}
		if err := localcp.RemoveOrphanNode(id); err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			code = 1
			continue
		}
		fmt.Fprintf(s.Out, "removed node %s: %s\n", id, strings.Join(left, "; "))
	}
	if localcp.HostKernelRecorded() {
		if dry {
			fmt.Fprintf(s.Out, "would write back the host's kernel settings a node's kubelet changed, once no node is left\n")
		} else if restored, err := localcp.RestoreHostKernel(); err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			code = 1
		} else if len(restored) > 0 {
			fmt.Fprintf(s.Out, "wrote back the host's kernel settings: %s\n", strings.Join(restored, " "))
		}
	}
	if dry {
		if engine.HasStalePolicy(engine.Options{}) {
			fmt.Fprintln(s.Out, "would remove /usr/sbin/policy-rc.d, left by a killed install of docker.io")
		}
	} else if removed, err := engine.RemoveStalePolicy(engine.Options{}); err != nil {
		fmt.Fprintln(s.Err, "draconform cleanup:", err)
		code = 1
	} else if removed {
		fmt.Fprintln(s.Out, "removed /usr/sbin/policy-rc.d, left by a killed install of docker.io (it kept every service from starting)")
	}
	// Where cells make their private folders when run from here.
	tmp := os.TempDir()
	states, err := localcp.OrphanStates(tmp)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform cleanup:", err)
		return 1
	}
	if len(states) == 0 {
		fmt.Fprintf(s.Out, "no orphaned control-plane folder in %s\n", tmp)
	}
	for _, path := range states {
		if dry {
			fmt.Fprintf(s.Out, "would remove control-plane folder %s (PKI, admin token, etcd data)\n", path)
			continue
		}
		if err := localcp.RemoveOrphanState(path); err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			code = 1
			continue
		}
		fmt.Fprintf(s.Out, "removed control-plane folder %s (PKI, admin token, etcd data)\n", path)
	}
	if cleanupRunFolders(s, dry, tmp) != 0 {
		code = 1
	}
	return code
}

// cleanupRunFolders removes the private folders of runs (their kubeconfig
// copies) and of the kind provider (its clusters' kubeconfigs) in tmp whose
// draconform is gone.
func cleanupRunFolders(s Streams, dry bool, tmp string) int {
	orphans, err := privdir.Orphans(tmp)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform cleanup:", err)
		return 1
	}
	if len(orphans) == 0 {
		fmt.Fprintf(s.Out, "no orphaned run or kind folder in %s\n", tmp)
	}
	code := 0
	for _, path := range slices.Sorted(maps.Keys(orphans)) {
		if dry {
			fmt.Fprintf(s.Out, "would remove run folder %s (kubeconfigs; %s)\n", path, orphans[path])
			continue
		}
		if err := privdir.RemoveOrphan(path); err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			code = 1
			continue
		}
		fmt.Fprintf(s.Out, "removed run folder %s (kubeconfigs; %s)\n", path, orphans[path])
	}
	return code
}

package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/draconform/draconform/steps"
)

// Kinds draconform creates outside namespaces; everything namespaced lives
// in a case namespace and goes with it, and a Node's Lease with its Node.
var resources = []schema.GroupVersionResource{
	{Version: "v1", Resource: "namespaces"},
	{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"},
	{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"},
	{Version: "v1", Resource: "nodes"},
}

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// Options say what to sweep.
type Options struct {
	// Run names the one run to sweep, alive or not; "" sweeps every run
	// that is not alive.
	Run string
	// DryRun lists what would be deleted and deletes nothing.
	DryRun bool
	// Now is the clock, for tests; nil is time.Now.
	Now func() time.Time
}

// Summary counts what a sweep found.
type Summary struct {
	// Objects carry the run label (of the swept runs and the living ones).
	Objects int
	// Left are the runs left alone because they may still be going.
	Left []string
}

type found struct {
	gvr  schema.GroupVersionResource
	item unstructured.Unstructured
}

// Sweep deletes the objects of the runs opts selects, saying on w what it
// deletes and which runs it leaves and why. The error joins every failed
// list or delete; what could be deleted is deleted.
func Sweep(ctx context.Context, dyn dynamic.Interface, opts Options, w io.Writer) (Summary, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	selector := steps.RunLabel
	if opts.Run != "" {
		selector = steps.RunLabel + "=" + opts.Run
	}
	var errs []error
	byRun := map[string][]found{}
	lives := map[string]*life{}
	for _, gvr := range resources {
		list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			errs = append(errs, fmt.Errorf("listing %s: %w", gvr.Resource, err))
			continue
		}
		for _, item := range list.Items {
			run := item.GetLabels()[steps.RunLabel]
			if !madeByRun(item.GetName(), run) {
				fmt.Fprintf(w, "leaving %s/%s: it carries %s=%s but its name does not start with %s, as every object of that run's does: draconform did not make it\n",
					gvr.Resource, item.GetName(), steps.RunLabel, run, runPrefix(run))
				continue
			}
			byRun[run] = append(byRun[run], found{gvr, item})
			if lv := lifeOf(lives, run); item.GetCreationTimestamp().After(lv.created) {
				lv.created = item.GetCreationTimestamp().Time
			}
		}
	}
	if opts.Run == "" {
		if err := renewals(ctx, dyn, selector, lives); err != nil {
			errs = append(errs, err)
		}
	}
	var sum Summary
	for _, run := range slices.Sorted(maps.Keys(byRun)) {
		sum.Objects += len(byRun[run])
		if opts.Run == "" {
			if alive, why := lives[run].alive(now()); alive {
				sum.Left = append(sum.Left, run)
				fmt.Fprintf(w, "leaving run %s (%d objects): it may still be going: %s; --run %s deletes them anyway\n", run, len(byRun[run]), why, run)
				continue
			}
		}
		errs = append(errs, deleteRun(ctx, dyn, byRun[run], opts.DryRun, w)...)
	}
	fmt.Fprintf(w, "%d objects carry the label %s\n", sum.Objects, selector)
	return sum, errors.Join(errs...)
}

// runPrefix begins the name of every object a run creates (steps.NewEnv:
// dc-<run>-<case>), its namespaces' included.
func runPrefix(run string) string { return "dc-" + run + "-" }

// madeByRun says whether an object named name, labelled with run, can be
// that run's: a label anyone can set is not enough to delete an object.
func madeByRun(name, run string) bool {
	return run != "" && strings.HasPrefix(name, runPrefix(run))
}

// deleteRun deletes one run's objects, namespaces first.
func deleteRun(ctx context.Context, dyn dynamic.Interface, objs []found, dry bool, w io.Writer) []error {
	var errs []error
	for _, o := range objs {
		name, run := o.item.GetName(), o.item.GetLabels()[steps.RunLabel]
		if ts := o.item.GetDeletionTimestamp(); ts != nil {
			fmt.Fprintf(w, "terminating %s/%s since %s (run %s)\n", o.gvr.Resource, name, ts.Format("15:04:05"), run)
			continue
		}
		if dry {
			fmt.Fprintf(w, "would delete %s/%s (run %s)\n", o.gvr.Resource, name, run)
			continue
		}
		if o.gvr.Resource == "namespaces" {
			// Pods on draconform's kubelet-less nodes would wait forever
			// for a graceful deletion nobody confirms.
			err := dyn.Resource(pods).Namespace(name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{})
			if err != nil {
				errs = append(errs, fmt.Errorf("deleting pods in %s: %w", name, err))
			}
		}
		if err := dyn.Resource(o.gvr).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s %s: %w", o.gvr.Resource, name, err))
			continue
		}
		fmt.Fprintf(w, "deleted %s/%s (run %s)\n", o.gvr.Resource, name, run)
	}
	return errs
}

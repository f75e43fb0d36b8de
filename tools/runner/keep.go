package runner

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/report"
)

// --keep-on-failure keeps what a person needs to look at a failed case and
// nothing that would change a later case: the case's namespace and the
// objects in it stay, while its cluster-scoped objects (DeviceClasses,
// ResourceSlices, Nodes, whose names are the case's own but which the
// scheduler weighs for every pod) are deleted, its fake Nodes' heartbeats
// stopped and any gates it changed restored, as after any case.

// cleanUp runs the case's clean-up: all of it, or with --keep-on-failure
// and a failed case all but its namespace, recording what was kept and how
// to reach it for the terminal and the reports.
func cleanUp(ctx context.Context, keepOnFailure bool, env *steps.Env, r *caseResult, st *cellState) error {
	if !keepOnFailure || r.failure == "" {
		return env.RunCleanup(ctx)
	}
	namespaced, removed := keptObjects(env)
	kept, err := env.RunCleanupKeeping(ctx)
	if len(kept) == 0 {
		// The case failed before its namespace was made.
		return err
	}
	gone := st.Gone
	if st.Discarded {
		gone = "this cluster is the run's own and stops when the run ends, taking the namespace with it"
	}
	text := keptText(env.Namespace, append(namespaced, othersClaims(ctx, env, namespaced)...), removed, gone, st.Kubectl)
	r.add(report.EntryKept, text, false)
	r.printf("%s\n", text)
	return err
}

// keptObjects lists the objects the case made, as Kind/name: those in its
// namespace, which stay, and the others, which clean-up removes.
func keptObjects(env *steps.Env) (namespaced, removed []string) {
	for _, o := range env.Objects() {
		name := o.Object.GetKind() + "/" + o.Object.GetName()
		if o.Namespaced && o.Object.GetNamespace() == env.Namespace {
			namespaced = append(namespaced, name)
		} else {
			removed = append(removed, name)
		}
	}
	sort.Strings(namespaced)
	sort.Strings(removed)
	return namespaced, removed
}

// othersClaims are the ResourceClaims in the case's namespace that the case
// did not make: the ones the scheduler made for a pod's extended resources
// (KEP-5004) or the claim controller from a template, which are often what
// a person looks at first. A list that fails leaves them unnamed; kubectl
// still shows them.
func othersClaims(ctx context.Context, env *steps.Env, made []string) []string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	claims := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}
	list, err := env.Clients.Dyn.Resource(claims).Namespace(env.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range list.Items {
		if name := "ResourceClaim/" + c.GetName(); !slices.Contains(made, name) {
			out = append(out, name+" (not the case's: the scheduler's or a controller's)")
		}
	}
	sort.Strings(out)
	return out
}

// keptText says what --keep-on-failure kept of a failed case and how to
// reach it: kubectl for a cluster that outlives the run; for one that goes
// with it (gone says why: the embedded providers', kind's without
// --kind-keep), that the diagnostics file is what remains.
func keptText(ns string, namespaced, removed []string, gone, kubectl string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kept (--keep-on-failure): namespace %s", ns)
	if len(namespaced) > 0 {
		fmt.Fprintf(&b, " with %s", strings.Join(namespaced, ", "))
	}
	b.WriteString("\n")
	if gone != "" {
		b.WriteString("  " + gone + ": the objects as they were at the failure are in the diagnostics file\n")
	} else {
		if kubectl == "" {
			kubectl = "kubectl"
		}
		fmt.Fprintf(&b, "  see it: %s -n %s get all,resourceclaims,resourceclaimtemplates\n", kubectl, ns)
		fmt.Fprintf(&b, "  remove it: %s delete namespace %s (or draconform cleanup, once the run is over)\n", kubectl, ns)
	}
	if len(removed) > 0 {
		fmt.Fprintf(&b, "  not kept (cluster-scoped, removed for the cases after it): %s\n", strings.Join(removed, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

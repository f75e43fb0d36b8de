package sonobuoy

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/draconform/draconform/tools/certify/access"
)

// Action is what Apply does to an object of the install.
type Action string

// What Apply does: Keep leaves a shared role that another install made as
// it was.
const (
	Create    Action = "create"
	Update    Action = "update"
	Unchanged Action = "unchanged"
	Keep      Action = "keep"
)

// Step is an object of the install, what Apply does (or did) to it, and
// what becomes of it at sonobuoy delete.
type Step struct {
	Object string // "Kind namespace/name"
	Action Action
	Fate   string
}

// Applier puts the plugin's install (Install: what sonobuoy-plugin --rbac
// prints) on the cluster of Kube, with Kube's credentials (an
// administrator's), so that sonobuoy delete leaves none of it. sonobuoy
// delete deletes Sonobuoy's namespace and the cluster RBAC objects it
// labels (DeleteLabels); so Apply makes the namespace, and every other
// object names it as its owner, which Kubernetes' garbage collector
// honours across scopes: a cluster-scoped owner may own a namespaced or a
// cluster-scoped object (k8s.io/kubernetes, pkg/controller/
// garbagecollector: graph_builder.go, addDependentToOwners; isDangling
// looks a cluster-scoped owner up without a namespace).
type Applier struct {
	Kube               kubernetes.Interface
	Namespace, Account string
}

// Plan is what Apply would do, as read from the cluster: it writes
// nothing.
func (a Applier) Plan(ctx context.Context) ([]Step, error) { return a.run(ctx, false) }

// Apply creates or updates each object of the install; an object that is
// as the install has it is not written, so a second Apply writes nothing.
func (a Applier) Apply(ctx context.Context) ([]Step, error) { return a.run(ctx, true) }

func (a Applier) run(ctx context.Context, write bool) ([]Step, error) {
	if err := checkNamespace(a.Namespace); err != nil {
		return nil, err
	}
	objs, err := Install(a.Namespace, a.Account)
	if err != nil {
		return nil, err
	}
	step, uid, err := a.namespace(ctx, write)
	if err != nil {
		return nil, err
	}
	steps := []Step{step}
	owner := namespaceOwner(a.Namespace, uid)
	for _, o := range objs {
		s, err := a.one(ctx, o.(object), owner, write)
		if err != nil {
			return steps, err
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// kubernetesOwn are namespaces Kubernetes makes and needs: sonobuoy
// delete would delete the one it runs in, and the Lease Role lives in
// kube-node-lease.
var kubernetesOwn = []string{"default", "kube-system", "kube-public", access.LeaseNamespace}

func checkNamespace(ns string) error {
	if slices.Contains(kubernetesOwn, ns) {
		return fmt.Errorf("--namespace %s is Kubernetes' own, and sonobuoy delete deletes Sonobuoy's namespace with all it owns: give Sonobuoy a namespace of its own (its default, %s)", ns, DefaultNamespace)
	}
	return nil
}

// namespace makes Sonobuoy's namespace where it is missing, and returns
// its UID, which the owned objects name (none where it is to be made and
// write is false).
func (a Applier) namespace(ctx context.Context, write bool) (Step, types.UID, error) {
	ns := Namespace(a.Namespace)
	st, err := storeFor(a.Kube, ns)
	if err != nil {
		return Step{}, "", err
	}
	step := Step{Object: describe(ns), Action: Unchanged, Fate: "sonobuoy delete deletes it"}
	cur, err := st.get(ctx, ns.Name)
	switch {
	case apierrors.IsNotFound(err):
		step.Action = Create
		step.Fate = fmt.Sprintf("labelled %s=%s as Sonobuoy's own manifest makes it; %s", PSALabel, ns.Labels[PSALabel], step.Fate)
		if !write {
			return step, "", nil
		}
		if cur, err = st.create(ctx, ns); err != nil {
			return step, "", writeError("creating", ns, err)
		}
	case err != nil:
		return step, "", fmt.Errorf("reading %s: %w", step.Object, err)
	case cur.GetDeletionTimestamp() != nil:
		return step, "", fmt.Errorf("%s is being deleted (a sonobuoy delete still under way?), and all it owns with it: wait until it is gone (kubectl wait --for=delete namespace/%s), then apply again", step.Object, ns.Name)
	}
	if cur.GetUID() == "" {
		return step, "", fmt.Errorf("%s has no UID, which the objects it owns must name", step.Object)
	}
	return step, cur.GetUID(), nil
}

// one creates or updates want, which is to be owned as its fate says.
func (a Applier) one(ctx context.Context, want object, owner metav1.OwnerReference, write bool) (Step, error) {
	st, err := storeFor(a.Kube, want)
	if err != nil {
		return Step{}, err
	}
	f := fateOf(want, a.Namespace)
	cur, err := st.get(ctx, want.GetName())
	switch {
	case apierrors.IsNotFound(err):
		o := want.DeepCopyObject().(object)
		if f == owned || f == shared {
			o.SetOwnerReferences([]metav1.OwnerReference{owner})
		}
		step := Step{Object: describe(want), Action: Create, Fate: a.fateText(f)}
		if write {
			if _, err := st.create(ctx, o); err != nil {
				return step, writeError("creating", want, err)
			}
		}
		return step, nil
	case err != nil:
		return Step{}, fmt.Errorf("reading %s: %w", describe(want), err)
	}
	d, step := a.desired(cur, want, owner, f)
	if write && step.Action == Update {
		if err := st.update(ctx, d); err != nil {
			return step, writeError("updating", want, err)
		}
	}
	return step, nil
}

// desired is what to write of want where cur is installed, and the step:
// Update with the object, or Unchanged or Keep with none.
func (a Applier) desired(cur, want object, owner metav1.OwnerReference, f fate) (object, Step) {
	step := Step{Object: describe(want), Action: Unchanged, Fate: a.fateText(f)}
	if f == shared && !ownedByOnly(cur, a.Namespace) {
		return a.sharedOfOthers(cur, owner, step)
	}
	refs := cur.GetOwnerReferences()
	if f == owned || f == shared {
		refs = withOwner(refs, owner)
	}
	lbl, ann := merged(cur.GetLabels(), want.GetLabels()), merged(cur.GetAnnotations(), want.GetAnnotations())
	same := access.Same(cur, want)
	if same && maps.Equal(lbl, cur.GetLabels()) && maps.Equal(ann, cur.GetAnnotations()) && equality.Semantic.DeepEqual(refs, cur.GetOwnerReferences()) {
		return nil, step
	}
	// What the preflight compares is want's where it differs; the API
	// server's defaults are kept where it does not.
	d := cur.DeepCopyObject().(object)
	if !same {
		d = want.DeepCopyObject().(object)
		d.SetResourceVersion(cur.GetResourceVersion())
		d.SetUID(cur.GetUID())
		d.SetFinalizers(cur.GetFinalizers())
	}
	d.SetLabels(lbl)
	d.SetAnnotations(ann)
	d.SetOwnerReferences(refs)
	step.Action = Update
	return d, step
}

// sharedOfOthers is the step for a shared role that existed, not made by
// this install. Made by hand or by draconform rbac (no owner), it may
// serve another runner for as long as that runner lives: it is left as it
// was, and stays. Made by another Sonobuoy install (owned by its
// namespace), it would go with that namespace, from under this one: this
// namespace becomes an owner beside it, and the role goes when the last
// owner does. Its rules are the other install's either way.
func (a Applier) sharedOfOthers(cur object, owner metav1.OwnerReference, step Step) (object, Step) {
	if len(cur.GetOwnerReferences()) == 0 {
		step.Action = Keep
		step.Fate = fmt.Sprintf("it existed before, made by no sonobuoy-plugin --apply (draconform rbac's, or by hand), and may serve another runner: left as it was, it stays after sonobuoy delete (kubectl delete clusterrole %s once nothing binds it)", cur.GetName())
		return nil, step
	}
	refs := withOwner(cur.GetOwnerReferences(), owner)
	step.Fate = fmt.Sprintf("it existed, owned by another install's namespace: Namespace %s owns it too, its rules stay the other install's, and the garbage collector removes it once the last of its owners is gone", a.Namespace)
	if equality.Semantic.DeepEqual(refs, cur.GetOwnerReferences()) {
		return nil, step
	}
	d := cur.DeepCopyObject().(object)
	d.SetOwnerReferences(refs)
	step.Action = Update
	return d, step
}

func (a Applier) fateText(f fate) string {
	switch f {
	case inNamespace:
		return "in Sonobuoy's namespace, it goes with it"
	case deletedBySonobuoy:
		return "sonobuoy delete removes it (it deletes the ClusterRoles and ClusterRoleBindings labelled " + DeleteSelector(a.Namespace) + ")"
	case shared:
		return "owned by Namespace " + a.Namespace + ", as this install made it: the garbage collector removes it once sonobuoy delete has deleted the namespace (a draconform rbac applied meanwhile for another runner would lose it then: apply it again after)"
	}
	return "owned by Namespace " + a.Namespace + ": the garbage collector removes it once sonobuoy delete has deleted the namespace"
}

// writeError says which object could not be written, and, where the
// credentials may not write it, whose are needed.
func writeError(verb string, o object, err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("%s %s: %w\n  sonobuoy-plugin --apply writes a namespace, cluster roles and an admission policy: run it with an administrator's credentials (--kubeconfig, --context)", verb, describe(o), err)
	}
	return fmt.Errorf("%s %s: %w", verb, describe(o), err)
}

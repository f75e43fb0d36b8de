package sonobuoy

import (
	"maps"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/draconform/draconform/tools/certify/access"
)

// fate is what becomes of an object of the install at sonobuoy delete.
type fate int

const (
	// inNamespace: it lives in Sonobuoy's namespace and goes with it.
	inNamespace fate = iota
	// deletedBySonobuoy: a ClusterRole or binding labelled as sonobuoy
	// delete selects them (DeleteLabels).
	deletedBySonobuoy
	// owned: sonobuoy delete would leave it, so it names the namespace as
	// its owner, and Kubernetes' garbage collector removes it once the
	// namespace is gone.
	owned
	// shared: a ClusterRole the runner binds by name, which another
	// install may use too: owned only where this install makes it.
	shared
)

// fateOf is o's fate: whatever sonobuoy delete would leave is owned, but
// for the shared roles.
func fateOf(o object, ns string) fate {
	switch {
	case o.GetNamespace() == ns:
		return inNamespace
	case isClusterRBAC(o) && labels.SelectorFromSet(DeleteLabels(ns)).Matches(labels.Set(o.GetLabels())):
		return deletedBySonobuoy
	case isClusterRole(o) && (o.GetName() == access.LogRoleName || o.GetName() == access.ReadRoleName):
		return shared
	}
	return owned
}

func isClusterRole(o object) bool {
	_, ok := o.(*rbacv1.ClusterRole)
	return ok
}

func isClusterRBAC(o object) bool {
	_, ok := o.(*rbacv1.ClusterRoleBinding)
	return ok || isClusterRole(o)
}

// namespaceOwner names Namespace ns (of uid) as an owner. Neither
// controller nor blockOwnerDeletion: the namespace controls nothing, and
// its deletion must not wait for these.
func namespaceOwner(ns string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: ns, UID: uid}
}

// refersTo says whether ref names Namespace ns, of whichever UID: a
// namespace of that name deleted and made again has another.
func refersTo(ref metav1.OwnerReference, ns string) bool {
	return ref.APIVersion == "v1" && ref.Kind == "Namespace" && ref.Name == ns
}

// ownedByOnly says whether o names Namespace ns as its owner, and no
// other: a shared role this install made, and no other install shares.
func ownedByOnly(o object, ns string) bool {
	refs := o.GetOwnerReferences()
	return len(refs) > 0 && !slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return !refersTo(r, ns) })
}

// withOwner is refs with owner among them, once: a reference to an
// earlier namespace of its name is replaced, others are kept (the garbage
// collector deletes an object only when all its owners are gone).
func withOwner(refs []metav1.OwnerReference, owner metav1.OwnerReference) []metav1.OwnerReference {
	var out []metav1.OwnerReference
	for _, r := range refs {
		if !refersTo(r, owner.Name) || r.UID == owner.UID {
			out = append(out, r)
		}
	}
	if !slices.ContainsFunc(out, func(r metav1.OwnerReference) bool { return r.UID == owner.UID && refersTo(r, owner.Name) }) {
		out = append(out, owner)
	}
	return out
}

// merged is cur with want's entries set: an apply adds and corrects its
// own labels and annotations, and leaves others' alone.
func merged(cur, want map[string]string) map[string]string {
	if len(want) == 0 {
		return cur
	}
	out := maps.Clone(cur)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, want)
	return out
}

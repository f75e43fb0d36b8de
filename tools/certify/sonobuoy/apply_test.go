package sonobuoy

import (
	"context"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/draconform/draconform/tools/certify/access"
)

const applyNS, applySA = "sonobuoy", "draconform"

// cluster is a fake API server that gives each object it creates a UID,
// as a real one does, holding objs.
func cluster(objs ...runtime.Object) *fake.Clientset {
	kube := fake.NewClientset(objs...)
	kube.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if m, err := meta.Accessor(a.(k8stesting.CreateAction).GetObject()); err == nil && m.GetUID() == "" {
			m.SetUID(types.UID("uid-" + m.GetName()))
		}
		return false, nil, nil
	})
	return kube
}

func applier(kube *fake.Clientset) Applier {
	return Applier{Kube: kube, Namespace: applyNS, Account: applySA}
}

// writes are the actions of kube that wrote, as "verb resource/name".
func writes(kube *fake.Clientset) []string {
	var out []string
	for _, a := range kube.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		name := ""
		if c, ok := a.(k8stesting.CreateAction); ok {
			if m, err := meta.Accessor(c.GetObject()); err == nil {
				name = m.GetName()
			}
		}
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource+"/"+name)
	}
	return out
}

// installed is every object of the install as the cluster holds it, by
// "Kind namespace/name".
func installed(t *testing.T, kube *fake.Clientset) map[string]object {
	t.Helper()
	objs, err := Install(applyNS, applySA)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]object{}
	for _, o := range append([]any{Namespace(applyNS)}, objs...) {
		st, err := storeFor(kube, o.(object))
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.get(context.Background(), o.(object).GetName())
		if err != nil {
			t.Fatalf("%s: %v", describe(o.(object)), err)
		}
		out[describe(o.(object))] = got
	}
	return out
}

// wantOwned are the objects sonobuoy delete would leave: the Lease Role
// and binding, the admission policy and binding, and the shared roles
// (made here).
var wantOwned = map[string]bool{
	"Role kube-node-lease/draconform-sonobuoy-sonobuoy-draconform":             true,
	"RoleBinding kube-node-lease/draconform-sonobuoy-sonobuoy-draconform":      true,
	"ValidatingAdmissionPolicy draconform-sonobuoy-sonobuoy-draconform":        true,
	"ValidatingAdmissionPolicyBinding draconform-sonobuoy-sonobuoy-draconform": true,
	"ClusterRole " + access.LogRoleName:                                        true,
	"ClusterRole " + access.ReadRoleName:                                       true,
}

// On a cluster without the install, Apply makes Sonobuoy's namespace
// first, as Sonobuoy's manifest would, and gives exactly what sonobuoy
// delete leaves that namespace as owner, by its UID, blocking nothing;
// what sonobuoy delete removes itself, and the account in the namespace,
// name no owner.
func TestApplyOwnsWhatSonobuoyDeleteLeaves(t *testing.T) {
	kube := cluster()
	steps, err := applier(kube).Apply(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Object != "Namespace sonobuoy" || steps[0].Action != Create {
		t.Errorf("first step %+v, want the namespace made", steps[0])
	}
	objs := installed(t, kube)
	if got := objs["Namespace sonobuoy"].GetLabels()[PSALabel]; got != "privileged" {
		t.Errorf("the namespace's %s is %q, want Sonobuoy's privileged", PSALabel, got)
	}
	want := []metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: applyNS, UID: "uid-sonobuoy"}}
	for name, o := range objs {
		refs := o.GetOwnerReferences()
		switch {
		case wantOwned[name] && !reflect.DeepEqual(refs, want):
			t.Errorf("%s is owned by %+v, want %+v", name, refs, want)
		case !wantOwned[name] && len(refs) != 0:
			t.Errorf("%s, which sonobuoy delete removes itself, is owned by %+v", name, refs)
		}
	}
	if len(objs) != 10 {
		t.Errorf("the install holds %d objects, want the namespace, the account and 8 of draconform rbac's", len(objs))
	}
	for _, s := range steps {
		if s.Action != Create {
			t.Errorf("%s: %s, want create on an empty cluster", s.Object, s.Action)
		}
	}
}

// Plan says the same and writes nothing.
func TestPlanWritesNothing(t *testing.T) {
	kube := cluster()
	steps, err := applier(kube).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if w := writes(kube); len(w) != 0 {
		t.Errorf("Plan wrote %v", w)
	}
	if len(steps) != 10 || steps[0].Action != Create {
		t.Errorf("Plan: %+v, want 10 creations", steps)
	}
}

// A second Apply writes nothing and says so: no owner twice, no update
// of what is as the install has it.
func TestSecondApplyWritesNothing(t *testing.T) {
	kube := cluster()
	ctx := context.Background()
	if _, err := applier(kube).Apply(ctx); err != nil {
		t.Fatal(err)
	}
	first := installed(t, kube)
	kube.ClearActions()
	steps, err := applier(kube).Apply(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w := writes(kube); len(w) != 0 {
		t.Errorf("the second Apply wrote %v", w)
	}
	for _, s := range steps {
		if s.Action != Unchanged {
			t.Errorf("second Apply: %s %s, want unchanged", s.Action, s.Object)
		}
	}
	if second := installed(t, kube); !reflect.DeepEqual(first, second) {
		t.Error("the second Apply changed the install")
	}
}

// An object of the install that differs (an edited policy) or names the
// owner no more (its namespace made again, of another UID) is put back:
// its owner is the namespace of today, once.
func TestApplyRepairsEditsAndStaleOwners(t *testing.T) {
	objs, err := Install(applyNS, applySA)
	if err != nil {
		t.Fatal(err)
	}
	var policy *admissionv1.ValidatingAdmissionPolicy
	var role *rbacv1.Role
	for _, o := range objs {
		switch o := o.(type) {
		case *admissionv1.ValidatingAdmissionPolicy:
			policy = o.DeepCopy()
		case *rbacv1.Role:
			role = o.DeepCopy()
		}
	}
	policy.Spec.Validations = policy.Spec.Validations[:1]
	stale := metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: applyNS, UID: "uid-gone"}
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "uid-x"}
	role.OwnerReferences = []metav1.OwnerReference{stale, other}
	kube := cluster(policy, role)
	if _, err := applier(kube).Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := installed(t, kube)
	ours := metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: applyNS, UID: "uid-sonobuoy"}
	if refs := got["Role kube-node-lease/"+role.Name].GetOwnerReferences(); !reflect.DeepEqual(refs, []metav1.OwnerReference{other, ours}) {
		t.Errorf("the Role is owned by %+v, want the other owner kept and today's namespace in place of the gone one", refs)
	}
	p := got["ValidatingAdmissionPolicy "+policy.Name].(*admissionv1.ValidatingAdmissionPolicy)
	if len(p.Spec.Validations) < 2 || !reflect.DeepEqual(p.OwnerReferences, []metav1.OwnerReference{ours}) {
		t.Errorf("the edited policy is not put back: %d validations, owners %+v", len(p.Spec.Validations), p.OwnerReferences)
	}
}

func sharedRole(name string, owners ...metav1.OwnerReference) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "uid-old-" + types.UID(name), OwnerReferences: owners},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods/log"}, Verbs: []string{"get"}}},
	}
}

// A shared role that existed, made by draconform rbac or by hand, is left
// as it was, owner and rules: another runner may bind it, and it must not
// go with this install. The step says it stays.
func TestApplyLeavesSharedRolesItDidNotMake(t *testing.T) {
	before := sharedRole(access.LogRoleName)
	kube := cluster(before.DeepCopy())
	ctx := context.Background()
	steps, err := applier(kube).Apply(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := installed(t, kube)["ClusterRole "+access.LogRoleName].(*rbacv1.ClusterRole)
	got.ManagedFields = nil
	if !reflect.DeepEqual(got, before) {
		t.Errorf("the shared role that existed was changed:\n got %+v\nwant %+v", got, before)
	}
	for _, w := range writes(kube) {
		if strings.HasSuffix(w, "/"+access.LogRoleName) || strings.HasPrefix(w, "update clusterroles") {
			t.Errorf("Apply wrote the role that existed: %s", w)
		}
	}
	step := stepOf(t, steps, "ClusterRole "+access.LogRoleName)
	if step.Action != Keep || !strings.Contains(step.Fate, "stays after sonobuoy delete") {
		t.Errorf("step %+v, want keep, saying it stays", step)
	}
	// The other shared role, missing, was made here and is owned.
	if s := stepOf(t, steps, "ClusterRole "+access.ReadRoleName); s.Action != Create || !strings.Contains(s.Fate, "owned by Namespace sonobuoy") {
		t.Errorf("step %+v, want the missing shared role made and owned", s)
	}
}

// A shared role another Sonobuoy install made is owned by that install's
// namespace, and would go with it from under this one: this namespace
// owns it too, its rules are left, and a second Apply adds nothing.
func TestApplyCoOwnsSharedRolesOfAnotherInstall(t *testing.T) {
	theirs := metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: "sonobuoy-b", UID: "uid-b"}
	before := sharedRole(access.ReadRoleName, theirs)
	kube := cluster(before.DeepCopy())
	ctx := context.Background()
	for range 2 {
		if _, err := applier(kube).Apply(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := installed(t, kube)["ClusterRole "+access.ReadRoleName].(*rbacv1.ClusterRole)
	ours := metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: applyNS, UID: "uid-sonobuoy"}
	if !reflect.DeepEqual(got.OwnerReferences, []metav1.OwnerReference{theirs, ours}) {
		t.Errorf("owners %+v, want theirs and ours, once", got.OwnerReferences)
	}
	if !reflect.DeepEqual(got.Rules, before.Rules) {
		t.Errorf("the other install's rules were changed: %+v", got.Rules)
	}
}

func stepOf(t *testing.T, steps []Step, name string) Step {
	t.Helper()
	for _, s := range steps {
		if s.Object == name {
			return s
		}
	}
	t.Fatalf("no step for %s in %+v", name, steps)
	return Step{}
}

// What Apply will not do it says, and writes nothing.
func TestApplyRefusals(t *testing.T) {
	deleting := Namespace(applyNS)
	deleting.UID, deleting.DeletionTimestamp = "uid-sonobuoy", &metav1.Time{}
	forbidden := cluster()
	forbidden.PrependReactor("create", "clusterroles", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(rbacv1.Resource("clusterroles"), "x", errFake)
	})
	for _, tt := range []struct {
		name, ns, account string
		kube              *fake.Clientset
		want              []string
	}{
		{"a namespace being deleted", applyNS, applySA, cluster(deleting), []string{"Namespace sonobuoy is being deleted", "kubectl wait --for=delete namespace/sonobuoy"}},
		{"Kubernetes' own namespace", access.LeaseNamespace, applySA, cluster(), []string{"--namespace kube-node-lease is Kubernetes' own"}},
		{"the default namespace", "default", applySA, cluster(), []string{"--namespace default is Kubernetes' own"}},
		{"no administrator", applyNS, applySA, forbidden, []string{"creating ClusterRole draconform-sonobuoy-sonobuoy-draconform", "an administrator's credentials"}},
		{"a bad account", applyNS, "a b", cluster(), []string{"serviceaccount:sonobuoy/a b"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Applier{Kube: tt.kube, Namespace: tt.ns, Account: tt.account}.Apply(context.Background())
			if err == nil {
				t.Fatal("applied")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\ndoes not say %q", err, w)
				}
			}
			if tt.kube != forbidden {
				if w := writes(tt.kube); len(w) != 0 {
					t.Errorf("refused, yet wrote %v", w)
				}
			}
		})
	}
}

var errFake = &fakeError{}

type fakeError struct{}

func (*fakeError) Error() string { return "no" }

// The namespace Apply makes is a core Namespace; kept here so that the
// test fails to compile if Namespace changes type.
var _ *corev1.Namespace = Namespace("x")

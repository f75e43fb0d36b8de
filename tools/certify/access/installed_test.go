package access_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/draconform/draconform/tools/certify/access"
)

// installedCluster holds what draconform rbac prints for the runner, each
// object changed by edit, and refuses every namespace as the policy's
// first rule does, in its words.
func installedCluster(t *testing.T, edit func(any)) *fake.Clientset {
	t.Helper()
	return installedAs(t, access.Install{}, runnerNS, runnerSA, edit)
}

// installedAs holds the install in of service account ns/sa, as
// installedCluster does draconform rbac's.
func installedAs(t *testing.T, in access.Install, ns, sa string, edit func(any)) *fake.Clientset {
	t.Helper()
	s, err := access.ParseSubject("serviceaccount:" + ns + "/" + sa)
	if err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	var refusal string
	for _, o := range in.Objects(s) {
		if p, ok := o.(*admissionv1.ValidatingAdmissionPolicy); ok {
			refusal = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", p.Name, p.Name, p.Spec.Validations[0].Message)
		}
		if edit != nil {
			edit(o)
		}
		objs = append(objs, o.(runtime.Object))
	}
	kube := fake.NewClientset(objs...)
	kube.PrependReactor("create", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(corev1.Resource("namespaces"), "draconform-preflight-x", &refusalError{refusal})
	})
	return kube
}

type refusalError struct{ msg string }

func (e *refusalError) Error() string { return e.msg }

// A refusal in the words of today's policy counts only where what is
// installed is what draconform rbac prints, the API server's defaults
// aside: an edit of the policy, its binding or the roles, keeping the
// words, is not confined, and the report names the object and the field.
func TestEditedPolicyIsNotConfined(t *testing.T) {
	policy := func(f func(*admissionv1.ValidatingAdmissionPolicy)) func(any) {
		return func(o any) {
			if p, ok := o.(*admissionv1.ValidatingAdmissionPolicy); ok {
				f(p)
			}
		}
	}
	for _, tt := range []struct {
		name  string
		edit  func(any)
		state string
		why   []string
	}{
		{"as printed", nil, access.ConfinedCurrent, nil},
		{"as printed, with the API server's defaults", policy(func(p *admissionv1.ValidatingAdmissionPolicy) {
			m := p.Spec.MatchConstraints
			m.MatchPolicy, m.NamespaceSelector, m.ObjectSelector = ptr.To(admissionv1.Equivalent), &metav1.LabelSelector{}, &metav1.LabelSelector{}
		}), access.ConfinedCurrent, nil},
		{"the priority rule dropped", policy(func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations = slices.DeleteFunc(p.Spec.Validations, func(v admissionv1.Validation) bool { return strings.Contains(v.Expression, "priorityClassName") })
		}), access.Unconfined, []string{"ValidatingAdmissionPolicy draconform-runner: spec.validations: "}},
		{"a rule made true", policy(func(p *admissionv1.ValidatingAdmissionPolicy) { p.Spec.Validations[3].Expression = "true" }),
			access.Unconfined, []string{"ValidatingAdmissionPolicy draconform-runner: spec.validations[3].expression"}},
		{"kube-system left out", policy(func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}}
		}), access.Unconfined, []string{"ValidatingAdmissionPolicy draconform-runner: spec.matchConstraints.namespaceSelector.matchExpressions"}},
		{"the binding only warns", func(o any) {
			if b, ok := o.(*admissionv1.ValidatingAdmissionPolicyBinding); ok {
				b.Spec.ValidationActions = []admissionv1.ValidationAction{admissionv1.Warn}
			}
		}, access.Unconfined, []string{"ValidatingAdmissionPolicyBinding draconform-runner: spec.validationActions[0]"}},
		{"the role reads Secrets", func(o any) {
			if r, ok := o.(*rbacv1.ClusterRole); ok && r.Name == access.RoleName {
				r.Rules = append(r.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}})
			}
		}, access.Unconfined, []string{"ClusterRole draconform-runner: rules: "}},
		{"the Role in kube-node-lease writes every Lease's neighbours", func(o any) {
			if r, ok := o.(*rbacv1.Role); ok {
				r.Rules[0].Resources = []string{"*"}
			}
		}, access.Unconfined, []string{"Role kube-node-lease/draconform-runner: rules[0].resources[0]"}},
		{"bound to another", func(o any) {
			if b, ok := o.(*rbacv1.ClusterRoleBinding); ok {
				b.Subjects[0].Name = "someone-else"
			}
		}, access.Unconfined, []string{"ClusterRoleBinding draconform-runner: binds ServiceAccount draconform/someone-else, not " + runnerUser}},
		{"an older manifest", policy(func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Annotations[access.PolicyVersionAnnotation] = "2"
			p.Spec.Validations = p.Spec.Validations[:5]
		}), access.ConfinedOlder, []string{"the installed policy is version 2", "spec.validations: 5 installed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			state, why := access.Confined(context.Background(), installedCluster(t, tt.edit), access.Install{}, runnerUser, nil)
			if state != tt.state {
				t.Errorf("confined: %s (%s), want %s", state, why, tt.state)
			}
			for _, w := range tt.why {
				if !strings.Contains(why, w) {
					t.Errorf("why %q does not say %q", why, w)
				}
			}
		})
	}
}

// What the preflight cannot read back it cannot vouch for.
func TestUnreadablePolicyIsUnknown(t *testing.T) {
	kube := installedCluster(t, nil)
	kube.PrependReactor("get", "validatingadmissionpolicies", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(admissionv1.Resource("validatingadmissionpolicies"), access.RoleName, &refusalError{"no"})
	})
	state, why := access.Confined(context.Background(), kube, access.Install{}, runnerUser, nil)
	if state != access.ConfinedUnknown || !strings.Contains(why, "reading ValidatingAdmissionPolicy draconform-runner") {
		t.Errorf("confined: %s (%s), want %s naming the policy", state, why, access.ConfinedUnknown)
	}
}

// TestTheRoleReadsBackEveryObjectItCompares: the preflight reads back each
// object draconform rbac prints, as the runner; a role that cannot get one
// of them (a new object added to the manifest, its name not to the get
// rule) makes every run unconfined on a cluster that applied the manifest.
func TestTheRoleReadsBackEveryObjectItCompares(t *testing.T) {
	for _, in := range []access.Install{{}, access.PluginInstall("sonobuoy", "draconform", nil)} {
		rolesReadBack(t, in)
	}
}

func rolesReadBack(t *testing.T, in access.Install) {
	t.Helper()
	s, err := access.ParseSubject("serviceaccount:draconform/runner")
	if err != nil {
		t.Fatal(err)
	}
	grants := func(rules []rbacv1.PolicyRule, group, resource, name string) bool {
		for _, r := range rules {
			if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, "get") &&
				(len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name)) {
				return true
			}
		}
		return false
	}
	for _, o := range in.Objects(s) {
		var group, resource, name string
		rules := in.ClusterRules()
		switch o := o.(type) {
		case *rbacv1.ClusterRole:
			group, resource, name = "rbac.authorization.k8s.io", "clusterroles", o.Name
		case *rbacv1.ClusterRoleBinding:
			group, resource, name = "rbac.authorization.k8s.io", "clusterrolebindings", o.Name
		case *rbacv1.Role:
			group, resource, name, rules = "rbac.authorization.k8s.io", "roles", o.Name, append(rules, in.LeaseRules()...)
		case *rbacv1.RoleBinding:
			group, resource, name, rules = "rbac.authorization.k8s.io", "rolebindings", o.Name, append(rules, in.LeaseRules()...)
		case *admissionv1.ValidatingAdmissionPolicy:
			group, resource, name = "admissionregistration.k8s.io", "validatingadmissionpolicies", o.Name
		case *admissionv1.ValidatingAdmissionPolicyBinding:
			group, resource, name = "admissionregistration.k8s.io", "validatingadmissionpolicybindings", o.Name
		default:
			t.Fatalf("the manifest holds a %T this test does not know", o)
		}
		if !grants(rules, group, resource, name) {
			t.Errorf("the role of install %+v cannot get %s %s, which the preflight reads back", in, resource, name)
		}
	}
}

// The Sonobuoy plugin's account runs with the install named for it
// (sonobuoy-plugin --rbac): the preflight finds that install by the
// account, reads it back with the account's own role and finds it
// confined; read as draconform rbac's, by draconform-runner, it is not
// there, and a run in the plugin would refuse to write.
func TestThePluginsInstallIsFoundAndConfined(t *testing.T) {
	const ns, sa = "sonobuoy", "draconform"
	user := "system:serviceaccount:" + ns + ":" + sa
	in := access.PluginInstall(ns, sa, map[string]string{"component": "sonobuoy"})
	kube := installedAs(t, in, ns, sa, nil)
	ctx := context.Background()
	found := access.InstallOf(ctx, kube, user)
	if found.Name != in.Name {
		t.Fatalf("the preflight of %s reads back install %q, want %q", user, found.Name, in.Name)
	}
	if state, why := access.Confined(ctx, kube, found, user, nil); state != access.ConfinedCurrent {
		t.Errorf("the plugin's install: %s (%s), want %s", state, why, access.ConfinedCurrent)
	}
	if state, _ := access.Confined(ctx, kube, access.Install{}, user, nil); state == access.ConfinedCurrent {
		t.Error("draconform rbac's install, absent here, was found confined")
	}
	// Another account is not the plugin's install's: it reads back
	// draconform rbac's.
	if other := access.InstallOf(ctx, kube, "system:serviceaccount:"+ns+":someone"); other.Name != "" {
		t.Errorf("another account reads back install %q", other.Name)
	}
	if other := access.InstallOf(ctx, kube, "alice"); other.Name != "" {
		t.Errorf("a user reads back install %q", other.Name)
	}
	// The plugin's install bound to another account is not this one's.
	kube = installedAs(t, in, ns, "someone", nil)
	if got := access.InstallOf(ctx, kube, user); got.Name != "" {
		t.Errorf("%s reads back install %q, which binds another account", user, got.Name)
	}
}

package access_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/certify/sonobuoy"
)

// What sonobuoy-plugin --rbac --apply installs, with the owner references
// and labels it adds, reads back in the plugin's preflight as the install
// it prints, current: they are metadata, which the read-back leaves out.
func TestAppliedPluginInstallReadsBackCurrent(t *testing.T) {
	const ns, sa = "sonobuoy", "draconform"
	user := "system:serviceaccount:" + ns + ":" + sa
	ctx := context.Background()
	kube := fake.NewClientset()
	kube.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if m, err := apimeta.Accessor(a.(k8stesting.CreateAction).GetObject()); err == nil && m.GetUID() == "" {
			m.SetUID(types.UID("uid-" + m.GetName()))
		}
		return false, nil, nil
	})
	if _, err := (sonobuoy.Applier{Kube: kube, Namespace: ns, Account: sa}).Apply(ctx); err != nil {
		t.Fatal(err)
	}
	in := access.PluginInstall(ns, sa, nil)
	p, err := kube.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, in.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.OwnerReferences) == 0 || p.Labels["component"] != "sonobuoy" {
		t.Fatalf("the applied policy has owners %+v and labels %v: nothing here for the read-back to leave out", p.OwnerReferences, p.Labels)
	}
	// The preflight's dry-run namespace, refused by the policy in its words.
	refusal := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", p.Name, p.Name, p.Spec.Validations[0].Message)
	kube.PrependReactor("create", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(corev1.Resource("namespaces"), "draconform-preflight-x", &refusalError{refusal})
	})
	found := access.InstallOf(ctx, kube, user)
	if found.Name != in.Name {
		t.Fatalf("the preflight of %s reads back install %q, want %q", user, found.Name, in.Name)
	}
	if state, why := access.Confined(ctx, kube, found, user, nil); state != access.ConfinedCurrent {
		t.Errorf("the applied install reads back %s (%s), want %s", state, why, access.ConfinedCurrent)
	}
}

package usecase

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/certify/sonobuoy"
)

// --apply says all it will do before its first write, then what it did,
// how to run Sonobuoy in the namespace it made, and what it leaves.
func TestSonobuoyApplySaysFirstWhatItWillDo(t *testing.T) {
	kept := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: access.LogRoleName, UID: "uid-kept"}}
	kube := fake.NewClientset(kept)
	var out bytes.Buffer
	var atFirstWrite string
	kube.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if atFirstWrite == "" {
			atFirstWrite = out.String()
		}
		if m, err := meta.Accessor(a.(k8stesting.CreateAction).GetObject()); err == nil {
			m.SetUID(types.UID("uid-" + m.GetName()))
		}
		return false, nil, nil
	})
	a := sonobuoy.Applier{Kube: kube, Namespace: "sonobuoy", Account: "draconform"}
	if err := sonobuoyApply(context.Background(), a, "https://kind:6443", &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Applying to https://kind:6443",
		"create    Namespace sonobuoy: labelled pod-security.kubernetes.io/enforce=privileged",
		"create    ValidatingAdmissionPolicyBinding draconform-sonobuoy-sonobuoy-draconform: owned by Namespace sonobuoy",
		"keep      ClusterRole " + access.LogRoleName + ": it existed before",
	} {
		if !strings.Contains(atFirstWrite, want) {
			t.Errorf("before its first write, --apply had not said %q:\n%s", want, atFirstWrite)
		}
	}
	if strings.Contains(atFirstWrite, "Done") {
		t.Errorf("--apply said it was done before it wrote:\n%s", atFirstWrite)
	}
	for _, want := range []string{
		"Done: 9 created, 0 updated, 0 unchanged, 1 kept as they were.",
		"sonobuoy run --namespace sonobuoy --skip-preflight=existingnamespace",
		"It leaves what existed before and this install did not make: ClusterRole " + access.LogRoleName + ".",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--apply did not say %q:\n%s", want, out.String())
		}
	}
}

// --apply applies what --rbac prints, object for object.
func TestSonobuoyApplyAppliesWhatRBACPrints(t *testing.T) {
	for _, acct := range [][2]string{{"sonobuoy", "draconform"}, {"sb2", "x"}} {
		printed, err := SonobuoyPlugin(SonobuoyRequest{RBAC: true, Namespace: acct[0], Account: acct[1]})
		if err != nil {
			t.Fatal(err)
		}
		var docs []map[string]any
		for _, doc := range strings.Split(string(printed), "\n---\n") {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
				t.Fatal(err)
			}
			if m != nil {
				docs = append(docs, m)
			}
		}
		objs, err := sonobuoy.Install(acct[0], acct[1])
		if err != nil {
			t.Fatal(err)
		}
		var applied []map[string]any
		for _, o := range objs {
			data, err := yaml.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := yaml.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			delete(m, "status")
			delete(m["metadata"].(map[string]any), "creationTimestamp")
			applied = append(applied, m)
		}
		if !reflect.DeepEqual(docs, applied) {
			t.Errorf("%s/%s: --apply applies\n%v\n--rbac prints\n%v", acct[0], acct[1], applied, docs)
		}
	}
}

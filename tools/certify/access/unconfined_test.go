package access_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/cli"
)

// logReadsOnlyWhereBound: the runner's token reads no pod's log in
// kube-system, nor in the run's namespace before it binds the log role
// there; once it has, it may. The pods need not exist: the API server
// authorizes a log read before it looks the pod up, so a refusal is
// Forbidden and a permitted read of no pod is NotFound.
func logReadsOnlyWhereBound(ctx context.Context, t *testing.T, cfg *rest.Config) {
	t.Helper()
	runner := kubernetes.NewForConfigOrDie(cfg)
	read := func(ns string) error {
		_, err := runner.CoreV1().Pods(ns).GetLogs("kube-scheduler-cp", &corev1.PodLogOptions{}).Do(ctx).Raw()
		return err
	}
	for _, ns := range []string{"kube-system", restrictedNS} {
		if err := read(ns); !apierrors.IsForbidden(err) {
			t.Errorf("the runner's token reads a pod's log in %s without binding the log role there: %v", ns, err)
		}
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: access.LogRoleName, Namespace: restrictedNS, Labels: runLabels(restrictedNS, nil)},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: access.LogRoleName},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: runnerUser}}}
	if _, err := runner.RbacV1().RoleBindings(restrictedNS).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the runner cannot bind the log role in its namespace: %v", err)
	}
	var last error
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		last = read(restrictedNS)
		return apierrors.IsNotFound(last), nil
	}); err != nil {
		t.Errorf("bound, the runner still cannot read a log in its namespace: %v", last)
	}
	if err := read("kube-system"); !apierrors.IsForbidden(err) {
		t.Errorf("bound in its namespace, the runner reads logs in kube-system: %v", err)
	}
}

// preflightSays runs the preflight with kc and extra: it must exit with
// code and say want.
func preflightSays(ctx context.Context, t *testing.T, kc, want string, code int, extra ...string) {
	t.Helper()
	var out bytes.Buffer
	got := cli.Run(ctx, append([]string{"preflight", "--kubeconfig", kc}, extra...), cli.Streams{Out: &out, Err: &out})
	if got != code || !strings.Contains(out.String(), want) {
		t.Errorf("preflight %v: exit %d (want %d), want %q:\n%s", extra, got, code, want, out.String())
		return
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, want) {
			t.Logf("preflight %v: exit %d: %s", extra, got, line)
			return
		}
	}
}

// editedNotConfined: the preflight reads back the installed policy and
// role and compares them with what draconform rbac prints. An
// administrator's edit that keeps the policy's words (so its refusals
// still name today's version) but drops the priority rule, or a role
// widened to read Secrets, is not confined, and the preflight names the
// object and the field; put back, it is confined again.
func editedNotConfined(ctx context.Context, t *testing.T, admin kubernetes.Interface, kc string) {
	t.Helper()
	pols := admin.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	p, err := pols.Get(ctx, access.RoleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	printed := p.Spec.DeepCopy()
	p.Spec.Validations = slices.DeleteFunc(p.Spec.Validations, func(v admissionv1.Validation) bool { return strings.Contains(v.Expression, "priorityClassName") })
	if _, err := pols.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	preflightSays(ctx, t, kc, "ValidatingAdmissionPolicy draconform-runner: spec.validations: ", 2)
	if p, err = pols.Get(ctx, access.RoleName, metav1.GetOptions{}); err == nil {
		p.Spec = *printed
		_, err = pols.Update(ctx, p, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	preflightSays(ctx, t, kc, "writes are confined to draconform's own objects by its admission policy", 0)

	roles := admin.RbacV1().ClusterRoles()
	r, err := roles.Get(ctx, access.RoleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rules := r.Rules
	r.Rules = append(slices.Clone(rules), rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}})
	if r, err = roles.Update(ctx, r, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	preflightSays(ctx, t, kc, "ClusterRole draconform-runner: rules: ", 2)
	r.Rules = rules
	if _, err := roles.Update(ctx, r, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	preflightSays(ctx, t, kc, "writes are confined to draconform's own objects by its admission policy", 0)
}

// runsRefusedUnconfined: the preflight calls the cluster confined only
// under today's policy. Under the ownership-only policy of 66cc199 it says
// to apply draconform rbac again, and without any policy it says writes
// are not confined; in both a run is refused before any case, with exit 2,
// unless --allow-unconfined says to write anyway.
func runsRefusedUnconfined(ctx context.Context, t *testing.T, admin kubernetes.Interface, kc string) {
	t.Helper()
	runner := kubernetes.NewForConfigOrDie(mustLoad(t, kc))
	preflight := func(want string, code int, extra ...string) {
		t.Helper()
		preflightSays(ctx, t, kc, want, code, extra...)
	}
	refusedRun := func(why string) {
		t.Helper()
		var out bytes.Buffer
		code := cli.Run(ctx, []string{"run", "--provider", "kubeconfig", "--kubeconfig", kc, "--suite", "kep6406-api", "--out", filepath.Join(t.TempDir(), "run")},
			cli.Streams{Out: &out, Err: &out})
		for _, want := range []string{"writes are not confined: refusing to write", why, "draconform rbac --subject", "--allow-unconfined"} {
			if code != 2 || !strings.Contains(out.String(), want) {
				t.Errorf("run under %s: exit %d, want 2 saying %q:\n%s", why, code, want, out.String())
			}
		}
		if strings.Contains(out.String(), "Ran ") {
			t.Errorf("a case ran:\n%s", out.String())
		}
	}
	// The refusal of a dry-run foreign namespace, which the preflight reads.
	waitRefusal := func(what string, ok func(error) bool) {
		t.Helper()
		var last error
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, last = runner.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "not-draconforms"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return ok(last), nil
		}); err != nil {
			t.Fatalf("%s never took effect: %v", what, last)
		}
	}
	preflight("writes are confined to draconform's own objects by its admission policy", 0)

	// The ownership-only policy of 66cc199: one rule, no version.
	pols := admin.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	p, err := pols.Get(ctx, access.RoleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Annotations = nil
	p.Spec.Variables = nil
	p.Spec.Validations = p.Spec.Validations[:1]
	p.Spec.Validations[0].Message = "draconform writes only objects it created: they carry the label " + access.RunLabel + ", or live in a namespace that does"
	if _, err := pols.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRefusal("the older policy", func(err error) bool {
		return err != nil && strings.Contains(err.Error(), "draconform writes only") && !strings.Contains(err.Error(), "policy version")
	})
	preflight("confined by an older policy of draconform's: apply `draconform rbac` again", 2)
	refusedRun("confined by an older policy")

	// No policy at all.
	if err := admin.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(ctx, access.RoleName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRefusal("removing the policy", func(err error) bool { return err == nil })
	preflight("writes are not confined", 2)
	refusedRun("nothing refused a dry-run namespace")
	preflight("--allow-unconfined: the run writes anyway", 0, "--allow-unconfined")
}

package kubeconfig_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/localcp/localcptest"
	"github.com/draconform/draconform/tools/cluster/probe"
)

// In a pod with no kubeconfig, the provider reaches the cluster as the pod's
// service account: shown against a real API server (the embedded v1.37.2),
// with a token from the TokenRequest API and the cluster's CA laid out as
// Kubernetes mounts them, and the capability probe the runner starts with
// works through it.
func TestInClusterWithAServiceAccountToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := localcptest.Start(ctx, t, "defaults")
	const ns = "draconform-incluster"
	token := clusterAdminToken(ctx, t, kubernetes.NewForConfigOrDie(c.RESTConfig()), ns)
	dir := mountServiceAccount(t, c.RESTConfig(), token)

	in, err := (&kubeconfig.Provider{ServiceAccountDir: dir}).Start(ctx, "defaults", nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Name() != "in-cluster" {
		t.Errorf("cluster name %q, want in-cluster", in.Name())
	}
	review, err := kubernetes.NewForConfigOrDie(in.RESTConfig()).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "system:serviceaccount:" + ns + ":runner"; review.Status.UserInfo.Username != want {
		t.Errorf("reached the cluster as %q, want %q", review.Status.UserInfo.Username, want)
	}
	caps, err := probe.Read(ctx, in.RESTConfig(), false)
	if err != nil {
		t.Fatalf("the probe through the service account: %v", err)
	}
	if caps.CapacityRequestsField != "unknown" {
		t.Errorf("probe through the service account found the field %s, want unknown on v1.37.2", caps.CapacityRequestsField)
	}

	// Outside a pod, the same provider says what is missing.
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	if _, err := (&kubeconfig.Provider{ServiceAccountDir: dir}).Start(ctx, "defaults", nil); err == nil {
		t.Error("no kubeconfig and no pod, yet the provider started")
	}
}

// clusterAdminToken creates namespace ns and service account "runner" in it,
// binds it to cluster-admin and returns a token from the TokenRequest API.
func clusterAdminToken(ctx context.Context, t *testing.T, admin kubernetes.Interface, ns string) string {
	t.Helper()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "runner"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "draconform-incluster"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "runner", Namespace: ns}}}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tok, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "runner", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Status.Token
}

// mountServiceAccount lays out token and the cluster's CA in a directory as
// Kubernetes mounts them into a pod, and sets the environment a pod gets
// (no kubeconfig, no ~/.kube/config); it returns the directory.
func mountServiceAccount(t *testing.T, cfg *rest.Config, token string) string {
	t.Helper()
	dir := t.TempDir()
	ca := cfg.TLSClientConfig.CAData
	if len(ca) == 0 {
		var err error
		if ca, err = os.ReadFile(cfg.TLSClientConfig.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", u.Hostname())
	t.Setenv("KUBERNETES_SERVICE_PORT", u.Port())
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir()) // no ~/.kube/config
	return dir
}

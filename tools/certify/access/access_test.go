package access_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/tools/certify/access"
)

func TestParseSubject(t *testing.T) {
	for in, want := range map[string]string{
		"serviceaccount:draconform/runner": "ServiceAccount draconform/runner",
		"sa:ci/bot":                        "ServiceAccount ci/bot",
		"user:alice@example.com":           "User /alice@example.com",
		"group:conformance":                "Group /conformance",
	} {
		s, err := access.ParseSubject(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := s.Kind + " " + s.Namespace + "/" + s.Name; got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "alice", "serviceaccount:runner", "user:o'brien", "robot:x", "group:",
		// Kubernetes' own subjects: every user, the admins, a node, a
		// component, and a component's service account.
		"group:system:authenticated", "group:system:masters", "user:system:node:n1", "user:System:kube-scheduler",
		"serviceaccount:kube-system/generic-garbage-collector"} {
		if _, err := access.ParseSubject(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The manifest is what an administrator applies: every object parses,
// binds the subject, and the policy matches that subject only.
func TestManifest(t *testing.T) {
	s, _ := access.ParseSubject("user:alice@example.com")
	data, err := access.Manifest(s)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, doc := range strings.Split(string(data), "\n---\n")[1:] {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("%v in\n%s", err, doc)
		}
		kinds = append(kinds, m["kind"].(string))
	}
	if got := strings.Join(kinds, ","); got != "ClusterRole,ClusterRoleBinding,ClusterRole,ClusterRole,Role,RoleBinding,ValidatingAdmissionPolicy,ValidatingAdmissionPolicyBinding" {
		t.Errorf("kinds %s", got)
	}
	for _, want := range []string{"name: alice@example.com", "request.userInfo.username == 'alice@example.com'", "namespace: kube-node-lease", "draconform.dev/run",
		"draconform.dev/policy-version: \"3\"", "(draconform policy version 3)"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the manifest lacks %q", want)
		}
	}
	for _, r := range slices.Concat(access.ClusterRules(), access.LeaseRules(), access.LogRules(), access.ReadRules()) {
		for _, v := range append(append(append([]string(nil), r.Verbs...), r.Resources...), r.APIGroups...) {
			if v == "*" || v == "secrets" || v == "escalate" || v == "impersonate" {
				t.Errorf("the role grants %q: %+v", v, r)
			}
			// bind only the log and read roles, which read their
			// namespace's logs, pods, events and ServiceAccounts.
			if v == "bind" && strings.Join(r.ResourceNames, ",") != access.LogRoleName+","+access.ReadRoleName {
				t.Errorf("the role may bind more than %s and %s: %+v", access.LogRoleName, access.ReadRoleName, r)
			}
		}
	}
}

// The role reads pods' logs nowhere: only the log role does, where the
// runner binds it (its case namespaces, as the policy holds it).
func TestLogsAreReadOnlyWhereBound(t *testing.T) {
	for _, n := range access.Needs() {
		if n.Resource == "pods" && n.Subresource == "log" {
			t.Errorf("the runner's role grants %s", n)
		}
	}
	if got := access.LogRules(); len(got) != 1 || got[0].Resources[0] != "pods/log" || strings.Join(got[0].Verbs, ",") != "get" {
		t.Errorf("the log role grants %+v, want get pods/log", got)
	}
}

// The role reads no pod, event or ServiceAccount cluster-wide: a pod's spec
// (its environment, its image, its arguments) is the cluster's workloads'
// business. The runner reads those of its case namespaces only, where it
// binds the read role.
func TestPodsAreReadOnlyWhereBound(t *testing.T) {
	for _, n := range access.Needs() {
		if slices.Contains([]string{"pods", "events", "serviceaccounts"}, n.Resource) && n.Subresource == "" && slices.Contains([]string{"get", "list", "watch"}, n.Verb) {
			t.Errorf("the runner's role grants %s", n)
		}
	}
	got := access.ReadRules()
	if len(got) != 1 || strings.Join(got[0].Resources, ",") != "pods,events,serviceaccounts" || strings.Join(got[0].Verbs, ",") != "get,list,watch" {
		t.Errorf("the read role grants %+v, want reads of pods, events and serviceaccounts", got)
	}
}

// Preflight calls a cluster confined only when today's policy refused its
// write; an earlier policy of draconform's, with or without its version,
// is older, and another's refusal tells nothing.
func TestConfinementFromTheRefusal(t *testing.T) {
	for _, tt := range []struct{ msg, want string }{
		{`namespaces "x" is forbidden: ValidatingAdmissionPolicy 'draconform-runner' with binding 'draconform-runner' denied request: draconform writes only objects it created: they carry the label draconform.dev/run, or live in a namespace that does (draconform policy version 3)`, access.ConfinedCurrent},
		{`ValidatingAdmissionPolicy 'draconform-runner' ... (draconform policy version 4)`, access.ConfinedCurrent},
		// Version 2, whose role read every namespace's pods.
		{`namespaces "x" is forbidden: ValidatingAdmissionPolicy 'draconform-runner' with binding 'draconform-runner' denied request: draconform writes only objects it created: they carry the label draconform.dev/run, or live in a namespace that does (draconform policy version 2)`, access.ConfinedOlder},
		// The ownership-only policy (66cc199) and the first confining one.
		{`namespaces "x" is forbidden: ValidatingAdmissionPolicy 'draconform-runner' with binding 'draconform-runner' denied request: draconform writes only objects it created: they carry the label draconform.dev/run, or live in a namespace that does`, access.ConfinedOlder},
		{`... denied request: ... (draconform policy version 1)`, access.ConfinedOlder},
		// Version 2 confined which objects were written, not what they did.
		{`... denied request: ... (draconform policy version 2)`, access.ConfinedOlder},
		{`namespaces "x" is forbidden: ValidatingAdmissionPolicy 'no-new-namespaces' with binding 'b' denied request: ask the platform team`, access.ConfinedUnknown},
		{`admission webhook "policy.example.com" denied the request`, access.ConfinedUnknown},
	} {
		if got := access.Confinement(tt.msg); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.msg, got, tt.want)
		}
	}
}

func TestNeedsCoverEveryRule(t *testing.T) {
	n := 0
	for _, r := range append(access.ClusterRules(), access.LeaseRules()...) {
		n += len(r.APIGroups) * len(r.Resources) * len(r.Verbs) * max(1, len(r.ResourceNames))
	}
	if got := len(access.Needs()); got != n || n == 0 {
		t.Errorf("%d needs for %d rule verbs", got, n)
	}
}

// Only a DaemonSet that tolerates the fake Nodes' taint and selects a Node
// with no labels but its hostname follows them.
func TestFollowFakeNodes(t *testing.T) {
	ds := func(name string, tol []corev1.Toleration, sel map[string]string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
			Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Tolerations: tol, NodeSelector: sel}}}}
	}
	all := []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	kube := fake.NewClientset(
		ds("cni", all, nil),
		ds("csi-linux-only", all, map[string]string{corev1.LabelOSStable: "linux"}),
		ds("monitoring-no-tolerations", nil, nil),
		ds("tolerates-noexecute-only", []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}, nil),
		ds("tolerates-draconform", []corev1.Toleration{{Key: access.RunLabel, Operator: corev1.TolerationOpExists}}, nil),
	)
	pod := func(name, node string, tol []corev1.Toleration) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "prod"}, Spec: corev1.PodSpec{NodeName: node, Tolerations: tol}}
	}
	for _, p := range []*corev1.Pod{pod("batch-tolerates-all", "", all), pod("web-pending", "", nil), pod("agent-bound", "gpu-node-1", all)} {
		if _, err := kube.CoreV1().Pods("prod").Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := access.FollowFakeNodes(context.Background(), kube)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.DaemonSets, ",") != "kube-system/cni,kube-system/tolerates-draconform" {
		t.Errorf("DaemonSets: got %v", got.DaemonSets)
	}
	if strings.Join(got.PendingPods, ",") != "prod/batch-tolerates-all" || got.PendingUnread != "" {
		t.Errorf("pending pods: got %v (%s)", got.PendingPods, got.PendingUnread)
	}
	// draconform rbac's runner reads no pod outside its namespaces: the
	// DaemonSets are still told, and the pending pods said unread.
	kube.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("RBAC: not bound"))
	})
	got, err = access.FollowFakeNodes(context.Background(), kube)
	if err != nil || len(got.DaemonSets) != 2 || got.PendingPods != nil || !strings.Contains(got.PendingUnread, "forbidden") {
		t.Errorf("with pods unreadable: %+v, %v; want the DaemonSets, and the pending pods unread", got, err)
	}
}

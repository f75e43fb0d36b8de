package access_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/klient/k8s/resources"
	e2ewait "sigs.k8s.io/e2e-framework/klient/wait"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/certify/secretscan"
	"github.com/draconform/draconform/tools/cli"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/internal/logtail"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/report"
)

const (
	runnerNS, runnerSA = "draconform", "runner"
	runnerUser         = "system:serviceaccount:" + runnerNS + ":" + runnerSA
	foreignUser        = "prod-operator"
	foreignNode        = "gpu-node-1"
)

// auditPolicy records every request's metadata, and the body of each pod
// binding, which says which Node the scheduler put a pod on.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Request
  resources: [{group: "", resources: ["pods/binding"]}]
- level: Metadata
`

// restrictedByDefault makes Pod Security's "restricted" level the default
// of every namespace that does not choose its own, as hardened clusters do;
// kube-system is exempt, as there.
const restrictedByDefault = `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: restricted, enforce-version: latest, warn: restricted, warn-version: latest}
    exemptions: {namespaces: [kube-system]}
`

var (
	deviceClasses  = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"}
	resourceSlices = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}
	resourceClaims = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}
)

// The experiment, automated: a prototype control plane with the
// KEP's gates on holds what a production cluster holds (a Ready GPU Node
// with its driver's ResourceSlice, DeviceClasses for nvidia.com/gpu and
// nvidia.com/gpu.shared, a running shared pod with its claim, a pending
// pod, a DaemonSet that tolerates every taint), all made by another user,
// and Pod Security "restricted" is the default of every namespace that
// chooses no level, as on a hardened cluster.
// draconform then runs through the kubeconfig provider as a service account
// bound to nothing but what draconform rbac ships, with the API server
// writing an audit log. Afterwards: every foreign object is unchanged, no
// draconform pod was bound to the foreign Node, no fake Node was made
// without consent (so no DaemonSet pod followed one), every write of the
// runner touched its own objects, nothing of the run is left, and no
// credential is in the run's output.
func TestProductionLikeClusterAsNonAdmin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane and runs the suite")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir := t.TempDir()
	auditLog := filepath.Join(dir, "audit.log")
	c := startAuditedCell(ctx, t, dir, auditLog)
	admin := kubernetes.NewForConfigOrDie(c.RESTConfig())
	restrictedInForce(ctx, t, admin)

	foreignCfg := c.RESTConfig()
	foreignCfg.Impersonate = rest.ImpersonationConfig{UserName: foreignUser, Groups: []string{"system:masters"}}
	foreign := seedProduction(ctx, t, foreignCfg)
	before := versions(ctx, t, foreignCfg, foreign)

	kc, token := runnerKubeconfig(ctx, t, admin, c.RESTConfig(), dir)
	runner := kubernetes.NewForConfigOrDie(mustLoad(t, kc))
	waitConfined(ctx, t, runner)
	confinedWrites(ctx, t, c.RESTConfig(), token, false)
	checkPreflight(ctx, t, kc)

	// Without consent: no fake Node, so no DaemonSet follows one, and
	// nothing of the cluster's changes.
	plain := runAsRunner(ctx, t, kc, filepath.Join(dir, "run"), token)
	if plain.consentSkips == 0 {
		t.Error("no case skipped for want of consent to fake Nodes")
	}
	unchanged(t, before, versions(ctx, t, foreignCfg, foreign))
	noNodeButForeign(ctx, t, admin)
	waitNothingLeft(ctx, t, admin, c.RESTConfig())

	// With consent: the fake-Node cases run; their pods stay on their own
	// Nodes; the DaemonSet follows the fake Nodes, as the preflight said,
	// and its pods go when the Nodes go. That churn is the controllers',
	// reported apart; every other foreign object is unchanged.
	consented := runAsRunner(ctx, t, kc, filepath.Join(dir, "run-fake-nodes"), token, "--allow-fake-nodes")
	if consented.passed <= plain.passed || consented.consentSkips != 0 {
		t.Errorf("--allow-fake-nodes ran %d cases (without: %d), %d still skipped for consent", consented.passed, plain.passed, consented.consentSkips)
	}
	waitNothingLeft(ctx, t, admin, c.RESTConfig())
	checkAgentsFollowFakeNodes(ctx, t, c.RESTConfig(), auditLog)
	churnedByControllers(t, auditLog, before, versions(ctx, t, foreignCfg, foreign))
	checkAudit(t, auditLog)
}

// startAuditedCell starts the prototype's capacity-on cell with an API
// server that writes an audit log to auditLog and admits pods restricted
// by default; its provider is closed when the test ends.
func startAuditedCell(ctx context.Context, t *testing.T, dir, auditLog string) cluster.Cluster {
	t.Helper()
	policyFile := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policyFile, []byte(auditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	admissionFile := filepath.Join(dir, "admission.yaml")
	if err := os.WriteFile(admissionFile, []byte(restrictedByDefault), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	const cell = "capacity-on"
	built, err := providers.Build(ctx, providers.Config{Name: "prototype", OutDir: filepath.Join(dir, "cp"), Log: testLog{t},
		Local: providers.LocalOptions{Version: "v1.37.2", APIServerFlags: []string{
			"--audit-policy-file=" + policyFile, "--audit-log-path=" + auditLog, "--audit-log-format=json", "--audit-log-mode=blocking",
			"--admission-control-config-file=" + admissionFile,
		}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := built.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(providers.Closer(p, testLog{t}))
	c, err := cluster.StartCell(ctx, p, cell, cluster.CellGates(b.Cells[cell]), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkPreflight runs the preflight as the runner: it must pass and say
// who runs, where writes go and what consenting to fake Nodes would do.
func checkPreflight(ctx context.Context, t *testing.T, kc string) {
	t.Helper()
	var pre bytes.Buffer
	if code := cli.Run(ctx, []string{"preflight", "--kubeconfig", kc, "--allow-fake-nodes"}, cli.Streams{Out: &pre, Err: &pre}); code != 0 {
		t.Fatalf("preflight as the runner: exit %d:\n%s", code, pre.String())
	}
	t.Logf("preflight:\n%s", pre.String())
	for _, want := range []string{"as " + runnerUser, "writes are confined", "kube-system/node-agent", "would put a pod on each fake Node"} {
		if !strings.Contains(pre.String(), want) {
			t.Errorf("the preflight does not say %q", want)
		}
	}
}

// noNodeButForeign checks that a run without --allow-fake-nodes left no
// Node but the foreign one.
func noNodeButForeign(ctx context.Context, t *testing.T, admin kubernetes.Interface) {
	t.Helper()
	nodes, err := admin.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if n.Name != foreignNode {
			t.Errorf("node %s exists after a run without --allow-fake-nodes", n.Name)
		}
	}
}

// checkAgentsFollowFakeNodes waits for the DaemonSet's pods left on fake
// Nodes that are gone to go too.
func checkAgentsFollowFakeNodes(ctx context.Context, t *testing.T, cfg *rest.Config, auditLog string) {
	t.Helper()
	began := time.Now()
	stranded := strandedAgents(ctx, t, cfg)
	if err := e2ewait.For(conditions.New(stranded.res).ResourcesDeleted(stranded.pods), e2ewait.WithContext(ctx), e2ewait.WithTimeout(5*time.Minute), e2ewait.WithInterval(time.Second)); err != nil {
		t.Errorf("the DaemonSet's pods on the fake Nodes outlived them by 5 minutes (pod garbage collection removes a pod whose Node is gone): %v", err)
	}
	t.Logf("with consent: the DaemonSet put %d pods on fake Nodes; the %d still there when the run ended were gone %.0f s later", followers(t, auditLog), len(stranded.pods.Items), time.Since(began).Seconds())
}

// stranded are the DaemonSet's pods left on Nodes that are gone, with the
// e2e-framework client that waits for their deletion.
type stranded struct {
	res  *resources.Resources
	pods *corev1.PodList
}

func strandedAgents(ctx context.Context, t *testing.T, cfg *rest.Config) stranded {
	t.Helper()
	res, err := resources.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res = res.WithNamespace("kube-system")
	all := &corev1.PodList{}
	if err := res.List(ctx, all, resources.WithLabelSelector("app=node-agent")); err != nil {
		t.Fatal(err)
	}
	out := &corev1.PodList{}
	for _, p := range all.Items {
		if p.Spec.NodeName != foreignNode {
			out.Items = append(out.Items, p)
		}
	}
	return stranded{res: res, pods: out}
}

// run is what one run as the runner gave.
type run struct{ passed, consentSkips int }

// runAsRunner runs draconform through the kubeconfig provider as the runner,
// in a process of its own (ginkgo runs one suite per process), and checks
// that no case failed and no credential reached the output folder.
func runAsRunner(ctx context.Context, t *testing.T, kc, out, token string, extra ...string) run {
	t.Helper()
	args := append([]string{"run", "--provider", "kubeconfig", "--kubeconfig", kc, "--as-cell", "capacity-on", "--out", out}, extra...)
	code, log := runChild(ctx, t, args...)
	var r run
	states := map[report.State]int{}
	for _, o := range readOutcomes(t, out) {
		states[o.State]++
		if o.State == report.Failed {
			// The whole message: its diff and the scheduler's word are the
			// only trace left once the test's folder is removed.
			t.Errorf("%s failed as the runner: %s", o.ID, o.Message)
		}
		if strings.Contains(o.Message, "--allow-fake-nodes") {
			r.consentSkips++
		}
	}
	r.passed = states[report.Passed]
	t.Logf("draconform %s: exit %d, %v", strings.Join(extra, " "), code, states)
	if r.passed < 10 {
		t.Errorf("only %d cases passed: the run did not really run\n%s", r.passed, logtail.Lines(log, 60))
	}
	leaks, err := secretscan.Scan(out, time.Time{}, token)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		t.Errorf("credential in the run's output: %s", l)
	}
	return r
}

// childEnv carries a child process's draconform arguments, as JSON.
const childEnv = "DRACONFORM_ACCESS_TEST_CHILD"

func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		var argv []string
		if err := json.Unmarshal([]byte(args), &argv); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(cli.Run(context.Background(), argv, cli.Streams{Out: os.Stdout, Err: os.Stderr}))
	}
	os.Exit(m.Run())
}

func runChild(ctx context.Context, t *testing.T, args ...string) (int, string) {
	t.Helper()
	data, _ := json.Marshal(args)
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+string(data))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("draconform %s: %v\n%s", strings.Join(args, " "), err, out)
	return 0, ""
}

// unchanged compares resourceVersions.
func unchanged(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed: resourceVersion %s, now %s", k, v, after[k])
		}
	}
}

// churnedByControllers reports the foreign objects that changed while fake
// Nodes came and went, with who changed them: the cluster's own components
// (the DaemonSet controller counting Nodes, the scheduler retrying a pending
// pod against each new Node), never the runner nor anyone else.
func churnedByControllers(t *testing.T, auditLog string, before, after map[string]string) {
	t.Helper()
	writers := map[string]map[string]bool{}
	eachAudit(t, auditLog, func(e auditEvent) {
		r := e.ObjectRef
		if r == nil || e.ResponseStatus == nil || e.ResponseStatus.Code >= 300 || !isWrite(e.Verb) {
			return
		}
		k := r.Resource + " " + r.Namespace + "/" + r.Name
		if writers[k] == nil {
			writers[k] = map[string]bool{}
		}
		writers[k][writer(e)+" "+e.Verb+" "+r.Subresource] = true
	})
	for k, v := range before {
		if after[k] == v {
			continue
		}
		var by []string
		for w := range writers[k] {
			by = append(by, w)
			who, _, _ := strings.Cut(w, " ")
			if who != "kube-scheduler" && who != "kube-controller-manager" && who != foreignUser {
				t.Errorf("%s was changed by %s", k, w)
			}
		}
		slices.Sort(by)
		t.Logf("churn of the cluster's controllers: %s (resourceVersion %s, now %s), written by: %s", k, v, after[k], strings.Join(by, "; "))
	}
}

// writer names who made a request: the impersonated user, else the
// program (the embedded control plane's components share one identity,
// and their user agents tell them apart), else the user.
func writer(e auditEvent) string {
	if e.ImpersonatedUser != nil {
		return e.ImpersonatedUser.Username
	}
	for _, c := range []string{"kube-scheduler", "kube-controller-manager"} {
		if strings.HasPrefix(e.UserAgent, c+"/") {
			return c
		}
	}
	return e.User.Username
}

func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// followers counts the DaemonSet pods the scheduler bound to fake Nodes,
// from the audit log's bindings.
func followers(t *testing.T, path string) int {
	t.Helper()
	n := 0
	eachAudit(t, path, func(e auditEvent) {
		if r := e.ObjectRef; r != nil && r.Resource == "pods" && r.Subresource == "binding" && r.Namespace == "kube-system" &&
			e.RequestObject != nil && strings.HasPrefix(e.RequestObject.Target.Name, "dc-") {
			n++
		}
	})
	return n
}

type objectKey struct {
	gvr       schema.GroupVersionResource
	namespace string
	name      string
}

func (k objectKey) String() string {
	return fmt.Sprintf("%s %s/%s", k.gvr.Resource, k.namespace, k.name)
}

// seedProduction creates, as the foreign user, what a production cluster
// with a GPU driver holds, and returns the objects to watch.
func seedProduction(ctx context.Context, t *testing.T, cfg *rest.Config) []objectKey {
	t.Helper()
	s := seeder{t: t, kube: kubernetes.NewForConfigOrDie(cfg), dyn: dynamic.NewForConfigOrDie(cfg)}
	// The workloads' own namespace chooses the baseline level, as a
	// cluster that defaults to restricted has its teams do.
	_, err := s.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}, metav1.CreateOptions{})
	s.must("namespace prod", err)
	s.readyNode(ctx)
	keys := []objectKey{
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, name: "prod"},
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, name: foreignNode},
	}
	keys = append(keys, s.driverObjects(ctx)...)
	waitDefaultSA(ctx, t, s.kube, "prod")
	s.workloads(ctx)
	return append(keys, s.placedWorkloads(ctx)...)
}

// seeder creates the foreign user's objects; a failure ends the test.
type seeder struct {
	t    *testing.T
	kube kubernetes.Interface
	dyn  dynamic.Interface
}

func (s seeder) must(what string, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("seeding %s: %v", what, err)
	}
}

// readyNode creates the foreign GPU node, ready and untainted.
func (s seeder) readyNode(ctx context.Context) {
	s.t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: foreignNode, Labels: map[string]string{corev1.LabelHostname: foreignNode, corev1.LabelOSStable: "linux"}},
		Status: corev1.NodeStatus{
			Capacity:    corev1.ResourceList{"cpu": mustQ("64"), "memory": mustQ("512Gi"), "pods": mustQ("110")},
			Allocatable: corev1.ResourceList{"cpu": mustQ("64"), "memory": mustQ("512Gi"), "pods": mustQ("110")},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
		}}
	created, err := s.kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	s.must("node", err)
	// The API server taints a new Node not-ready until a kubelet says
	// otherwise; this one's "kubelet" is the test.
	created.Spec.Taints = nil
	_, err = s.kube.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{})
	s.must("node taints", err)
}

// foreignDriverObjects are a GPU driver's slice on the foreign node and its
// two DeviceClasses, whole and shared.
func foreignDriverObjects() []map[string]any {
	return []map[string]any{
		{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": map[string]any{"name": foreignNode + "-gpu.nvidia.com"},
			"spec": map[string]any{"driver": "gpu.nvidia.com", "nodeName": foreignNode,
				"pool": map[string]any{"name": foreignNode, "generation": int64(1), "resourceSliceCount": int64(1)},
				"devices": []any{map[string]any{"name": "gpu-0", "allowMultipleAllocations": true,
					"attributes": map[string]any{"productName": map[string]any{"string": "H100"}},
					"capacity":   map[string]any{"memory": map[string]any{"value": "80Gi"}}}}}},
		{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": map[string]any{"name": "gpu.nvidia.com"},
			"spec": map[string]any{"extendedResourceName": "nvidia.com/gpu",
				"selectors": []any{map[string]any{"cel": map[string]any{"expression": `device.driver == "gpu.nvidia.com"`}}}}},
		{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": map[string]any{"name": "gpu-shared.nvidia.com"},
			"spec": map[string]any{"extendedResourceName": "nvidia.com/gpu.shared",
				"extendedResourceCapacityRequests": map[string]any{"requests": map[string]any{"memory": "10Gi"}},
				"selectors":                        []any{map[string]any{"cel": map[string]any{"expression": `device.driver == "gpu.nvidia.com" && device.allowMultipleAllocations`}}}}},
	}
}

func (s seeder) driverObjects(ctx context.Context) []objectKey {
	s.t.Helper()
	var keys []objectKey
	for _, o := range foreignDriverObjects() {
		u := &unstructured.Unstructured{Object: o}
		gvr := deviceClasses
		if u.GetKind() == "ResourceSlice" {
			gvr = resourceSlices
		}
		_, err := s.dyn.Resource(gvr).Create(ctx, u, metav1.CreateOptions{})
		s.must(u.GetKind()+" "+u.GetName(), err)
		keys = append(keys, objectKey{gvr: gvr, name: u.GetName()})
	}
	return keys
}

// workloads creates a pod asking for a shared GPU, one asking for eight
// whole GPUs, and a DaemonSet that tolerates every taint.
func (s seeder) workloads(ctx context.Context) {
	s.t.Helper()
	pod := func(name, resource, n string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "prod"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.example/inference:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceName(resource): mustQ(n)}, Limits: corev1.ResourceList{corev1.ResourceName(resource): mustQ(n)}}}}}}
	}
	_, err := s.kube.CoreV1().Pods("prod").Create(ctx, pod("inference", "nvidia.com/gpu.shared", "1"), metav1.CreateOptions{})
	s.must("pod prod/inference", err)
	_, err = s.kube.CoreV1().Pods("prod").Create(ctx, pod("training", "nvidia.com/gpu", "8"), metav1.CreateOptions{})
	s.must("pod prod/training", err)
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "node-agent", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "node-agent"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "node-agent"}},
				Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers: []corev1.Container{{Name: "agent", Image: "registry.example/agent:1"}}}}}}
	_, err = s.kube.AppsV1().DaemonSets("kube-system").Create(ctx, ds, metav1.CreateOptions{})
	s.must("DaemonSet node-agent", err)
}

// placedWorkloads waits until the shared pod is bound with its claim, as a
// running workload is, and the DaemonSet has put its pod on the GPU node;
// it returns the pods, the claim and the DaemonSet.
func (s seeder) placedWorkloads(ctx context.Context) []objectKey {
	s.t.Helper()
	kube := s.kube
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := kube.CoreV1().Pods("prod").Get(ctx, "inference", metav1.GetOptions{})
		if err != nil || p.Spec.NodeName == "" {
			return false, err
		}
		agents, err := kube.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "app=node-agent"})
		return err == nil && len(agents.Items) == 1 && agents.Items[0].Spec.NodeName != "", err
	})
	if err != nil {
		events, _ := kube.CoreV1().Events("").List(ctx, metav1.ListOptions{})
		var lines []string
		for _, e := range events.Items {
			lines = append(lines, e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name+": "+e.Reason+": "+e.Message)
		}
		s.t.Fatalf("the shared pod was not bound, or the agent not placed: %v\nevents:\n%s", err, strings.Join(lines, "\n"))
	}
	claims, err := s.dyn.Resource(resourceClaims).Namespace("prod").List(ctx, metav1.ListOptions{})
	s.must("claims", err)
	if len(claims.Items) != 1 {
		s.t.Fatalf("the shared pod has %d claims, want its one synthesized claim", len(claims.Items))
	}
	var keys []objectKey
	for _, cl := range claims.Items {
		keys = append(keys, objectKey{gvr: resourceClaims, namespace: "prod", name: cl.GetName()})
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	agents, err := kube.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "app=node-agent"})
	s.must("agents", err)
	return append(keys, objectKey{gvr: pods, namespace: "prod", name: "inference"}, objectKey{gvr: pods, namespace: "prod", name: "training"},
		objectKey{gvr: pods, namespace: "kube-system", name: agents.Items[0].Name},
		objectKey{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, namespace: "kube-system", name: "node-agent"})
}

func versions(ctx context.Context, t *testing.T, cfg *rest.Config, keys []objectKey) map[string]string {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(cfg)
	out := map[string]string{}
	for _, k := range keys {
		var ri dynamic.ResourceInterface = dyn.Resource(k.gvr)
		if k.namespace != "" {
			ri = dyn.Resource(k.gvr).Namespace(k.namespace)
		}
		u, err := ri.Get(ctx, k.name, metav1.GetOptions{})
		if err != nil {
			out[k.String()] = "gone: " + err.Error()
			continue
		}
		out[k.String()] = u.GetResourceVersion()
	}
	return out
}

// restrictedInForce shows the cluster refuses, in a namespace that chose
// no level, a pod that the restricted level does not admit: so the runs
// below, whose namespaces choose none, ran under it.
func restrictedInForce(ctx context.Context, t *testing.T, admin kubernetes.Interface) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/x:1"}}}}
	_, err := admin.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil || !strings.Contains(err.Error(), "violates PodSecurity \"restricted") {
		t.Fatalf("Pod Security restricted is not the default: a pod without a securityContext got %v", err)
	}
}

// runnerKubeconfig makes the service account draconform runs as, applies
// what draconform rbac ships for it and nothing else, and writes its
// kubeconfig with a TokenRequest token in a private folder.
func runnerKubeconfig(ctx context.Context, t *testing.T, admin kubernetes.Interface, adminCfg *rest.Config, dir string) (string, string) {
	t.Helper()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: runnerNS}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().ServiceAccounts(runnerNS).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: runnerSA}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sub, err := access.ParseSubject("serviceaccount:" + runnerNS + "/" + runnerSA)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range access.Objects(sub) {
		var err error
		switch o := o.(type) {
		case *rbacv1.ClusterRole:
			_, err = admin.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = admin.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = admin.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *admissionv1.ValidatingAdmissionPolicy:
			_, err = admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, o, metav1.CreateOptions{})
		case *admissionv1.ValidatingAdmissionPolicyBinding:
			_, err = admin.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, o, metav1.CreateOptions{})
		default:
			t.Fatalf("access.Objects returned a %T this test cannot apply", o)
		}
		if err != nil {
			t.Fatalf("applying the shipped manifest: %v", err)
		}
	}
	tok, err := admin.CoreV1().ServiceAccounts(runnerNS).CreateToken(ctx, runnerSA, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(dir, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(private, "kubeconfig")
	cfg := &rest.Config{Host: adminCfg.Host, BearerToken: tok.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: adminCfg.CAData, CAFile: adminCfg.CAFile}}
	if err := kubeconfig.Write(cfg, path); err != nil {
		t.Fatal(err)
	}
	return path, tok.Status.Token
}

// waitConfined waits until the admission policy is in force (the API
// server loads it through an informer), shown by what it exists for: the
// runner may not touch a foreign DeviceClass, though its role allows
// updates of DeviceClasses.
func waitConfined(ctx context.Context, t *testing.T, runner kubernetes.Interface) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = runner.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "not-draconforms"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last != nil && strings.Contains(last.Error(), "draconform writes only objects it created"), nil
	})
	if err != nil {
		t.Fatalf("the admission policy never refused the runner's foreign write: %v", last)
	}
	dc, err := runner.ResourceV1().DeviceClasses().Get(ctx, "gpu.nvidia.com", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the runner cannot read DeviceClasses: %v", err)
	}
	dc.Labels = map[string]string{access.RunLabel: "taken-over"}
	if _, err := runner.ResourceV1().DeviceClasses().Update(ctx, dc, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil || !apierrors.IsForbidden(err) {
		t.Errorf("the runner could take a foreign DeviceClass over by labelling it: %v", err)
	}
	if _, err := runner.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the runner can list Secrets, which it never needs: %v", err)
	}
	// Pod specs are read only in the run's namespaces, where it binds the
	// read role.
	if _, err := runner.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the runner can list kube-system's pods: %v", err)
	}
}

// waitNothingLeft waits for the namespace controller to finish the run's
// namespaces, then looks for any object carrying the run label.
func waitNothingLeft(ctx context.Context, t *testing.T, admin kubernetes.Interface, cfg *rest.Config) {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: access.RunLabel}
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		ns, err := admin.CoreV1().Namespaces().List(ctx, sel)
		return err == nil && len(ns.Items) == 0, err
	})
	if err != nil {
		t.Errorf("the run's namespaces are still there after 2 minutes: %v", err)
	}
	dyn := dynamic.NewForConfigOrDie(cfg)
	for _, gvr := range []schema.GroupVersionResource{deviceClasses, resourceSlices, {Version: "v1", Resource: "nodes"}, {Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}} {
		list, err := dyn.Resource(gvr).List(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range list.Items {
			t.Errorf("left behind: %s %s/%s", gvr.Resource, u.GetNamespace(), u.GetName())
		}
	}
}

// auditEvent is the part of an audit.k8s.io/v1 Event the checks read.
type auditEvent struct {
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ImpersonatedUser *struct {
		Username string `json:"username"`
	} `json:"impersonatedUser"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestObject *struct {
		Target struct {
			Name string `json:"name"`
		} `json:"target"`
	} `json:"requestObject"`
}

// checkAudit reads the API server's audit log: each successful write of
// the runner must be to an object of the run (a dc- name or namespace, the
// run's prefix) or a dry run, and no pod of the run may have been bound to
// the foreign Node. Permissions the role grants that the run never used
// are logged, as the measure of how close the role is to what a run needs.
func checkAudit(t *testing.T, path string) {
	t.Helper()
	used := map[string]bool{}
	writes, bindings := 0, 0
	eachAudit(t, path, func(e auditEvent) {
		ref := e.ObjectRef
		if ref == nil {
			return
		}
		if ref.Resource == "pods" && ref.Subresource == "binding" && strings.HasPrefix(ref.Namespace, "dc-") && e.RequestObject != nil {
			bindings++
			if e.RequestObject.Target.Name == foreignNode {
				t.Errorf("pod %s/%s of the run was bound to the foreign node %s", ref.Namespace, ref.Name, foreignNode)
			}
		}
		if e.User.Username != runnerUser || e.ResponseStatus == nil || e.ResponseStatus.Code >= 300 {
			return
		}
		resource := ref.Resource
		if ref.Subresource != "" {
			resource += "/" + ref.Subresource
		}
		used[e.Verb+" "+resource+"."+ref.APIGroup] = true
		if !isWrite(e.Verb) {
			return
		}
		if ref.APIGroup == "authorization.k8s.io" || ref.APIGroup == "authentication.k8s.io" || strings.Contains(e.RequestURI, "dryRun=All") {
			return // reviews store nothing; a dry run writes nothing
		}
		writes++
		if !strings.HasPrefix(ref.Namespace, "dc-") && !strings.HasPrefix(ref.Name, "dc-") {
			t.Errorf("the runner wrote what the run did not create: %s %s %s/%s (%s)", e.Verb, resource, ref.Namespace, ref.Name, e.RequestURI)
		}
	})
	if bindings == 0 {
		t.Error("no pod of the run was bound: the foreign-node check would pass on anything")
	}
	if writes == 0 {
		t.Fatal("the audit log holds no write by the runner: the check would pass on anything")
	}
	var unused []string
	for _, n := range access.Needs() {
		key := n.Verb + " " + n.Resource
		if n.Subresource != "" {
			key += "/" + n.Subresource
		}
		if !used[key+"."+n.Group] {
			unused = append(unused, n.String())
		}
	}
	slices.Sort(unused)
	t.Logf("audit: %d writes by the runner, all to its own objects; %d bindings of its pods; %d of %d granted permissions unused by this run: %s",
		writes, bindings, len(unused), len(access.Needs()), strings.Join(unused, ", "))
}

// eachAudit calls fn with each event of the audit log.
func eachAudit(t *testing.T, path string, fn func(auditEvent)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit log: %v", err)
		}
		fn(e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func readOutcomes(t *testing.T, dir string) []report.Outcome {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, report.OutcomesFile))
	if err != nil {
		t.Fatalf("the run wrote no outcomes: %v", err)
	}
	var out []report.Outcome
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func waitDefaultSA(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kube.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("no default ServiceAccount in %s: %v", ns, err)
	}
}

func mustLoad(t *testing.T, path string) *rest.Config {
	t.Helper()
	cfg, err := kubeconfig.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// testLog sends a provider's progress to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func mustQ(s string) resource.Quantity { return resource.MustParse(s) }

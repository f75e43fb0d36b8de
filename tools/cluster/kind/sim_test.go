package kind

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	kindexec "sigs.k8s.io/kind/pkg/exec"
	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/tools/cluster"
)

// simNode stands in for a kind control-plane node: files, the kubelet's
// answer to a changed static pod manifest, and crictl. It knows no more
// than the provider relies on, which is what these tests pin down.
type simNode struct {
	name string

	mu         sync.Mutex
	files      map[string][]byte
	containers map[cluster.Component][]*simContainer // oldest first
	seq        int
	renewals   int
	// known lists the gates each binary's --help shows.
	known map[cluster.Component][]string
	// refuse returns the log of a component that exits under gates, or "".
	refuse func(c cluster.Component, g cluster.Gates) string
	ran    [][]string
	// backOffOnAPIServerRestart makes a component exit when the API server
	// restarts and stay exited until its manifest changes, as in the
	// kubelet's crash-loop back-off.
	backOffOnAPIServerRestart map[cluster.Component]bool
	// lostLogs: the next refused containers are removed as soon as crictl
	// ps has listed them, before their log is read (crictl logs answers
	// NotFound), and the kubelet starts the component again, as in a
	// crash loop whose restart races draconform's look.
	lostLogs int
}

type simContainer struct {
	id, state, log string
	created        int64
	// removed: the runtime no longer has the container's log;
	// goesOnList: it will be once a listing has shown it.
	removed, goesOnList bool
}

func newSimNode(t *testing.T, name string) *simNode {
	t.Helper()
	n := &simNode{
		name:       name,
		files:      map[string][]byte{},
		containers: map[cluster.Component][]*simContainer{},
		known: map[cluster.Component][]string{
			cluster.APIServer:         {"DRAConsumableCapacity", "DRAPartitionableDevices"},
			cluster.Scheduler:         {"DRAConsumableCapacity", "DRAPartitionableDevices"},
			cluster.ControllerManager: {"DRAConsumableCapacity", "DRAPartitionableDevices"},
		},
		refuse: func(cluster.Component, cluster.Gates) string { return "" },
	}
	for _, c := range cluster.Components {
		n.files[manifestPath(c)] = readTestdata(t, string(c)+".yaml")
		n.startLocked(c, "")
	}
	return n
}

func (n *simNode) String() string               { return n.name }
func (n *simNode) Role() (string, error)        { return "control-plane", nil }
func (n *simNode) IP() (string, string, error)  { return "172.18.0.2", "", nil }
func (n *simNode) SerialLogs(w io.Writer) error { return nil }
func (n *simNode) Command(name string, args ...string) kindexec.Cmd {
	return &simCmd{n: n, argv: append([]string{name}, args...)}
}
func (n *simNode) CommandContext(_ context.Context, name string, args ...string) kindexec.Cmd {
	return n.Command(name, args...)
}

var _ nodes.Node = (*simNode)(nil)

type simCmd struct {
	n           *simNode
	argv        []string
	stdin       io.Reader
	stdout, err io.Writer
}

func (c *simCmd) SetEnv(...string) kindexec.Cmd      { return c }
func (c *simCmd) SetStdin(r io.Reader) kindexec.Cmd  { c.stdin = r; return c }
func (c *simCmd) SetStdout(w io.Writer) kindexec.Cmd { c.stdout = w; return c }
func (c *simCmd) SetStderr(w io.Writer) kindexec.Cmd { c.err = w; return c }
func (c *simCmd) Run() error {
	var in []byte
	if c.stdin != nil {
		in, _ = io.ReadAll(c.stdin)
	}
	out, err := c.n.exec(c.argv, in)
	if c.stdout != nil {
		c.stdout.Write(out)
	}
	if err != nil && c.err != nil {
		fmt.Fprintln(c.err, err)
	}
	return err
}

func (n *simNode) exec(argv []string, stdin []byte) ([]byte, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ran = append(n.ran, argv)
	switch {
	case argv[0] == "cat" && len(argv) == 2:
		data, ok := n.files[argv[1]]
		if !ok {
			return nil, fmt.Errorf("cat: %s: No such file or directory", argv[1])
		}
		return data, nil
	case argv[0] == "cp" && len(argv) == 3 && argv[1] == "/dev/stdin":
		n.files[argv[2]] = stdin
		return nil, nil
	case argv[0] == "mv" && len(argv) == 4 && argv[1] == "-f":
		data, ok := n.files[argv[2]]
		if !ok {
			return nil, fmt.Errorf("mv: cannot stat %s", argv[2])
		}
		delete(n.files, argv[2])
		n.files[argv[3]] = data
		if path.Dir(argv[3]) == manifestsDir {
			n.kubeletLocked(cluster.Component(strings.TrimSuffix(path.Base(argv[3]), ".yaml")))
		}
		return nil, nil
	case len(argv) == 7 && argv[0] == "crictl" && argv[1] == "ps":
		return n.psLocked(cluster.Component(strings.Trim(argv[4], "^$")))
	case len(argv) == 5 && argv[0] == "crictl" && argv[1] == "logs":
		if c := n.containerLocked(argv[4]); c != nil && !c.removed {
			return []byte(c.log), nil
		}
		return nil, errors.New("no such container")
	case len(argv) == 5 && argv[0] == "crictl" && argv[1] == "exec" && argv[4] == "--help":
		comp := cluster.Component(path.Base(argv[3]))
		var b strings.Builder
		b.WriteString("      --feature-gates colonSeparatedMultimapStringString\n")
		for _, g := range n.known[comp] {
			fmt.Fprintf(&b, "                kube:%s=true|false (BETA - default=true)\n", g)
		}
		return []byte(b.String()), nil
	case len(argv) == 3 && argv[0] == "crictl" && argv[1] == "stop":
		for comp, cs := range n.containers {
			for _, c := range cs {
				if c.id == argv[2] {
					c.state = "CONTAINER_EXITED"
					n.startLocked(comp, "") // restartPolicy: Always
					return nil, nil
				}
			}
		}
		return nil, errors.New("no such container")
	}
	return nil, fmt.Errorf("simNode: unexpected command %q", argv)
}

// kubeletLocked replaces the static pod of c after its manifest changed.
func (n *simNode) kubeletLocked(c cluster.Component) {
	for _, ctr := range n.containers[c] {
		ctr.state = "CONTAINER_EXITED"
	}
	g, err := FeatureGatesOf(n.files[manifestPath(c)], c)
	if err != nil {
		panic(err)
	}
	n.startLocked(c, n.refuse(c, g))
	if c != cluster.APIServer {
		return
	}
	for comp, off := range n.backOffOnAPIServerRestart {
		if ctr := n.newest(comp); off && ctr != nil {
			ctr.state = "CONTAINER_EXITED"
		}
	}
}

func (n *simNode) startLocked(c cluster.Component, refusal string) {
	n.seq++
	ctr := &simContainer{id: fmt.Sprintf("%s-%d", c, n.seq), state: "CONTAINER_RUNNING", created: int64(n.seq)}
	if refusal != "" {
		ctr.state, ctr.log = "CONTAINER_EXITED", refusal
	}
	n.containers[c] = append(n.containers[c], ctr)
	if refusal != "" && n.lostLogs > 0 {
		n.lostLogs--
		ctr.goesOnList = true
	}
}

func (n *simNode) containerLocked(id string) *simContainer {
	for _, cs := range n.containers {
		for _, c := range cs {
			if c.id == id {
				return c
			}
		}
	}
	return nil
}

func (n *simNode) psLocked(c cluster.Component) ([]byte, error) {
	type entry struct {
		ID       string `json:"id"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		State     string `json:"state"`
		CreatedAt string `json:"createdAt"`
	}
	var out struct {
		Containers []entry `json:"containers"`
	}
	var restart []*simContainer
	for _, ctr := range n.containers[c] {
		e := entry{ID: ctr.id, State: ctr.state, CreatedAt: fmt.Sprint(ctr.created)}
		e.Metadata.Name = string(c)
		out.Containers = append(out.Containers, e)
		if ctr.goesOnList {
			restart = append(restart, ctr)
		}
	}
	for _, ctr := range restart {
		ctr.goesOnList, ctr.removed = false, true
		n.startLocked(c, ctr.log)
	}
	return json.Marshal(out)
}

func (n *simNode) newest(c cluster.Component) *simContainer {
	cs := n.containers[c]
	if len(cs) == 0 {
		return nil
	}
	return cs[len(cs)-1]
}

// manifestGates reads what the node's manifests say now.
func (n *simNode) manifestGates(t *testing.T) cluster.GateState {
	t.Helper()
	g, err := readGates(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func (n *simNode) wrote(c cluster.Component) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	count := 0
	for _, argv := range n.ran {
		if argv[0] == "mv" && argv[3] == manifestPath(c) {
			count++
		}
	}
	return count
}

// simAPI answers as the API server of a simNode would: mirror pods from
// the manifests, Ready while the newest container runs; leases held by the
// running container and renewed at every look.
type simAPI struct{ n *simNode }

func (a simAPI) readyz(context.Context) error {
	a.n.mu.Lock()
	defer a.n.mu.Unlock()
	if c := a.n.newest(cluster.APIServer); c == nil || c.state != "CONTAINER_RUNNING" {
		return errors.New("connection refused")
	}
	return nil
}

func (a simAPI) mirrorPod(_ context.Context, name string) (*corev1.Pod, error) {
	a.n.mu.Lock()
	defer a.n.mu.Unlock()
	comp := cluster.Component(strings.TrimSuffix(name, "-"+a.n.name))
	var pod corev1.Pod
	if err := yaml.Unmarshal(a.n.files[manifestPath(comp)], &pod); err != nil {
		return nil, err
	}
	pod.Name = name
	if c := a.n.newest(comp); c != nil && c.state == "CONTAINER_RUNNING" {
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	return &pod, nil
}

func (a simAPI) lease(_ context.Context, name string) (*coordinationv1.Lease, error) {
	a.n.mu.Lock()
	defer a.n.mu.Unlock()
	c := a.n.newest(cluster.Component(name))
	if c == nil || c.state != "CONTAINER_RUNNING" {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, name)
	}
	a.n.renewals++
	holder := a.n.name + "_" + c.id
	renew := metav1.NewMicroTime(time.Unix(int64(a.n.renewals), 0))
	return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, RenewTime: &renew}}, nil
}

var fastTiming = timing{interval: time.Millisecond, apiserver: 2 * time.Second, component: 2 * time.Second, reconnect: 2 * time.Second, backoff: 20 * time.Millisecond}

func simCluster(t *testing.T) (*kindCluster, *simNode) {
	t.Helper()
	n := newSimNode(t, "draconform-control-plane")
	kc := &kindCluster{name: "draconform", cp: n, api: simAPI{n}, gateCache: newGateCache(), timing: fastTiming, logf: t.Logf}
	kc.gates = n.manifestGates(t)
	return kc, n
}

// fakeKind stands in for kind's library: clusters are simNodes.
type fakeKind struct {
	t        *testing.T
	mu       sync.Mutex
	clusters map[string]*simNode
	created  []string
	deleted  []string
	logs     []string
	setup    func(*simNode)
}

func (f *fakeKind) Create(name string, _ ...kindcluster.CreateOption) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := newSimNode(f.t, name+"-control-plane")
	// A new cluster has no gates: kube-scheduler.yaml in testdata does.
	n.files[manifestPath(cluster.Scheduler)] = mustSetGates(f.t, n.files[manifestPath(cluster.Scheduler)], cluster.Scheduler, nil)
	if f.setup != nil {
		f.setup(n)
	}
	f.clusters[name] = n
	f.created = append(f.created, name)
	return nil
}

func (f *fakeKind) Delete(name, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.clusters, name)
	f.deleted = append(f.deleted, name)
	return nil
}

func (f *fakeKind) List() ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for name := range f.clusters {
		out = append(out, name)
	}
	return out, nil
}

func (f *fakeKind) ListNodes(name string) ([]nodes.Node, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.clusters[name]; ok {
		return []nodes.Node{n}, nil
	}
	return nil, nil
}

func (f *fakeKind) KubeConfig(string, bool) (string, error) {
	return `apiVersion: v1
kind: Config
clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: k, user: {token: x}}]
contexts: [{name: k, context: {cluster: k, user: k}}]
current-context: k
`, nil
}

func (f *fakeKind) ExportKubeConfig(string, string, bool) error { return nil }

func (f *fakeKind) CollectLogs(name, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, name)
	return nil
}

func (f *fakeKind) calls() (created, deleted, logs []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.created...), append([]string(nil), f.deleted...), append([]string(nil), f.logs...)
}

func mustSetGates(t *testing.T, manifest []byte, c cluster.Component, g cluster.Gates) []byte {
	t.Helper()
	out, err := SetFeatureGates(manifest, c, g)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func dockerUp(context.Context, string, ...string) ([]byte, error) { return []byte("29.1.0\n"), nil }

// simProvider is a Provider over fakeKind, with Docker "up".
func simProvider(t *testing.T, opts Options) (*Provider, *fakeKind) {
	t.Helper()
	fk := &fakeKind{t: t, clusters: map[string]*simNode{}}
	if opts.OutDir == "" {
		opts.OutDir = t.TempDir()
	}
	if opts.Runner == nil {
		opts.Runner = dockerUp
	}
	var log bytes.Buffer
	if opts.Log == nil {
		opts.Log = &log
	}
	p, err := newProvider(opts, fk)
	if err != nil {
		t.Fatal(err)
	}
	p.timing = fastTiming
	p.newAPI = func(_ kubernetes.Interface, cp nodes.Node) controlPlaneAPI { return simAPI{cp.(*simNode)} }
	// The kubeconfigs' private folder is the system's, not the test's:
	// a test that keeps its clusters, or never closes the provider, would
	// leave it behind (two a `make test` before).
	t.Cleanup(func() {
		if p.private != "" {
			_ = os.RemoveAll(p.private)
		}
	})
	return p, fk
}

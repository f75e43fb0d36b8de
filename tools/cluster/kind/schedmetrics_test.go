package kind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	kindexec "sigs.k8s.io/kind/pkg/exec"
	"sigs.k8s.io/yaml"
)

// cannedNode answers every command with the same stdout, stderr and
// error, as a node whose kubectl printed them, and records what ran.
type cannedNode struct {
	stdout, stderr string
	err            error
	ran            [][]string
}

func (n *cannedNode) String() string               { return "draconform-control-plane" }
func (n *cannedNode) Role() (string, error)        { return "control-plane", nil }
func (n *cannedNode) IP() (string, string, error)  { return "172.18.0.2", "", nil }
func (n *cannedNode) SerialLogs(w io.Writer) error { return nil }
func (n *cannedNode) Command(name string, args ...string) kindexec.Cmd {
	n.ran = append(n.ran, append([]string{name}, args...))
	return &cannedCmd{n: n}
}
func (n *cannedNode) CommandContext(_ context.Context, name string, args ...string) kindexec.Cmd {
	return n.Command(name, args...)
}

var _ nodes.Node = (*cannedNode)(nil)

type cannedCmd struct {
	n           *cannedNode
	stdout, err io.Writer
}

func (c *cannedCmd) SetEnv(...string) kindexec.Cmd      { return c }
func (c *cannedCmd) SetStdin(io.Reader) kindexec.Cmd    { return c }
func (c *cannedCmd) SetStdout(w io.Writer) kindexec.Cmd { c.stdout = w; return c }
func (c *cannedCmd) SetStderr(w io.Writer) kindexec.Cmd { c.err = w; return c }
func (c *cannedCmd) Run() error {
	if c.stdout != nil {
		io.WriteString(c.stdout, c.n.stdout)
	}
	if c.err != nil {
		io.WriteString(c.err, c.n.stderr)
	}
	return c.n.err
}

func TestSchedulerMetrics(t *testing.T) {
	const metrics = `# HELP scheduler_unschedulable_pods [BETA] The number of unschedulable pods broken down by plugin name.
# TYPE scheduler_unschedulable_pods gauge
scheduler_unschedulable_pods{plugin="DynamicResources",profile="default-scheduler"} 1
`
	const prefix = "kind-v1.37.0/capacity-on: reading kube-scheduler's metrics at https://127.0.0.1:10259/metrics from inside the control-plane node, as the user of /etc/kubernetes/admin.conf: " +
		"kubectl --kubeconfig /etc/kubernetes/admin.conf --server https://127.0.0.1:10259 --insecure-skip-tls-verify get --raw /metrics on node draconform-control-plane: exit status 1: "
	tests := []struct {
		name    string
		node    cannedNode
		want    string // the metrics, where no error
		wantErr string
	}{
		{name: "served", node: cannedNode{stdout: metrics}, want: metrics},
		// What kubectl v1.37.2 printed in a kind node where nothing listened
		// (a scheduler down) and for a user not allowed /metrics (the
		// kubelet's, from kubelet.conf).
		{name: "scheduler down", node: cannedNode{
			stderr: "The connection to the server 127.0.0.1:10259 was refused - did you specify the right host or port?\n",
			err:    errors.New("exit status 1"),
		}, wantErr: prefix + "The connection to the server 127.0.0.1:10259 was refused - did you specify the right host or port?"},
		{name: "not authorized", node: cannedNode{
			stderr: `Error from server (Forbidden): forbidden: User "system:node:draconform-control-plane" cannot get path "/metrics"` + "\n",
			err:    errors.New("exit status 1"),
		}, wantErr: prefix + `Error from server (Forbidden): forbidden: User "system:node:draconform-control-plane" cannot get path "/metrics"`},
		{name: "empty", node: cannedNode{stdout: "\n"},
			wantErr: "kind-v1.37.0/capacity-on: kube-scheduler's metrics at https://127.0.0.1:10259/metrics came back empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &tt.node
			c := &Cluster{p: &Provider{opts: Options{Image: "kindest/node:v1.37.0"}}, kc: &kindCluster{cp: n}, cell: "capacity-on"}
			got, err := c.SchedulerMetrics(context.Background())
			if diff := cmp.Diff([][]string{schedulerMetricsArgv()}, n.ran); diff != "" {
				t.Errorf("commands (-want +got):\n%s", diff)
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("error:\n got %v\nwant %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("metrics %q, want %q", got, tt.want)
			}
		})
	}
}

// schedulerServing is kubeadm's choice, not ours: hold it to the probes
// of kubeadm's kube-scheduler manifest (testdata, as kubeadm v1.37 writes
// it), which reach the scheduler where SchedulerMetrics does.
func TestSchedulerServesWhereKubeadmProbes(t *testing.T) {
	var pod corev1.Pod
	if err := yaml.Unmarshal(readTestdata(t, "kube-scheduler.yaml"), &pod); err != nil {
		t.Fatal(err)
	}
	if !pod.Spec.HostNetwork {
		t.Error("kube-scheduler runs without hostNetwork: its loopback is not the node's")
	}
	ctr := pod.Spec.Containers[0]
	if !slices.Contains(ctr.Command, "--bind-address=127.0.0.1") {
		t.Errorf("kube-scheduler's command %q binds elsewhere than loopback", ctr.Command)
	}
	for name, p := range map[string]*corev1.Probe{"liveness": ctr.LivenessProbe, "readiness": ctr.ReadinessProbe, "startup": ctr.StartupProbe} {
		g := p.HTTPGet
		got := fmt.Sprintf("%s://%s", strings.ToLower(string(g.Scheme)), net.JoinHostPort(g.Host, g.Port.String()))
		if got != schedulerServing {
			t.Errorf("kubeadm's %s probe reaches kube-scheduler at %s; SchedulerMetrics reads %s", name, got, schedulerServing)
		}
	}
}

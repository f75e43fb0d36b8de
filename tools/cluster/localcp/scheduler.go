package localcp

import (
	"fmt"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/tools/cluster"
)

// schedulerConfig is the part of KubeSchedulerConfiguration the provider sets;
// the rest keeps the binary's defaults. It is declared here rather than
// imported so that the suite does not depend on k8s.io/kube-scheduler.
type schedulerConfig struct {
	APIVersion       string                    `json:"apiVersion"`
	Kind             string                    `json:"kind"`
	LeaderElection   schedulerLeaderElection   `json:"leaderElection"`
	ClientConnection schedulerClientConnection `json:"clientConnection"`
}

type schedulerLeaderElection struct {
	LeaderElect bool `json:"leaderElect"`
}

type schedulerClientConnection struct {
	Kubeconfig  string `json:"kubeconfig"`
	ContentType string `json:"contentType,omitempty"`
	QPS         int    `json:"qps"`
	Burst       int    `json:"burst"`
}

// renderSchedulerConfig leaves contentType out when empty, so the binary's
// default (protobuf) applies. Leader election is on, as in a real cluster:
// a second scheduler that reaches the cluster, however it got there, waits
// for the lease instead of binding pods beside ours (two did once, and each
// case then found two claims for one pod). A restart costs nothing for it:
// the stopped scheduler releases the lease on SIGTERM.
func renderSchedulerConfig(kubeconfig, contentType string) ([]byte, error) {
	out, err := yaml.Marshal(schedulerConfig{
		APIVersion:     "kubescheduler.config.k8s.io/v1",
		Kind:           "KubeSchedulerConfiguration",
		LeaderElection: schedulerLeaderElection{LeaderElect: true},
		ClientConnection: schedulerClientConnection{
			Kubeconfig:  kubeconfig,
			ContentType: contentType,
			QPS:         100,
			Burst:       200,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("rendering scheduler config: %w", err)
	}
	return out, nil
}

// schedulerLeads is what the scheduler's /metrics says once it holds the
// lease and schedules.
const schedulerLeads = `leader_election_master_status{name="kube-scheduler"} 1`

func schedulerArgs(configPath string, port int, gates cluster.Gates) []string {
	// /metrics without a token, on loopback only: benchmarks read the
	// scheduler's own latency beside the suite's.
	return append([]string{"--config=" + configPath, "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics"}, servingArgs(port, gates)...)
}

// servingArgs are the flags the scheduler and the controller manager share:
// a loopback health port, --v=2 (the scheduler's attempts are logged at 2,
// which the hot-loop check counts) and the cell's gates.
func servingArgs(port int, gates cluster.Gates) []string {
	args := []string{"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port), "--v=2"}
	if f := gates.Flag(); f != "" {
		args = append(args, "--feature-gates="+f)
	}
	return args
}

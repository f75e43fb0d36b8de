package kind

import (
	"bytes"
	"context"
	"fmt"

	"github.com/draconform/draconform/tools/cluster"
)

var _ cluster.SchedulerMetrics = (*Cluster)(nil)

// schedulerServing is where kubeadm's kube-scheduler serves /metrics: its
// default secure port, bound by kubeadm to loopback (--bind-address=
// 127.0.0.1, the address its probes name too) in the static pod's host
// network. Only a process inside the control-plane node reaches it: the
// host cannot, and the API server's pod proxy dials the pod's IP, not
// loopback.
const schedulerServing = "https://127.0.0.1:10259"

// adminKubeconfig holds the credentials kind itself hands out for the
// cluster (kubeadm's admin.conf, group kubeadm:cluster-admins, bound to
// cluster-admin). kube-scheduler asks the API server to authenticate and
// authorize a client for /metrics, which is no always-allowed path.
const adminKubeconfig = "/etc/kubernetes/admin.conf"

// schedulerMetricsArgv reads kube-scheduler's /metrics from inside the
// control-plane node. kubectl rather than curl: kind's published node
// image has curl, the one draconform builds offline does not, and every
// node image has kubectl. --server points admin.conf's user at the
// scheduler instead of the API server; --insecure-skip-tls-verify because
// the scheduler serves a certificate it signed itself at start, which no
// file in the node verifies (kubectl drops admin.conf's CA with it), and
// the connection never leaves the node's loopback.
func schedulerMetricsArgv() []string {
	return []string{"kubectl", "--kubeconfig", adminKubeconfig, "--server", schedulerServing, "--insecure-skip-tls-verify", "get", "--raw", "/metrics"}
}

// SchedulerMetrics implements cluster.SchedulerMetrics.
func (c *Cluster) SchedulerMetrics(ctx context.Context) (string, error) {
	out, err := nodeRun(ctx, c.kc.cp, nil, schedulerMetricsArgv()...)
	return schedulerMetricsResult(out, err, c.Name())
}

// schedulerMetricsResult turns what kubectl gave into the metrics or an
// error that says what was read, from where and as whom: kubectl's own
// message (connection refused, Forbidden) is at its end.
func schedulerMetricsResult(out []byte, err error, name string) (string, error) {
	if err != nil {
		return "", fmt.Errorf("%s: reading kube-scheduler's metrics at %s/metrics from inside the control-plane node, as the user of %s: %w", name, schedulerServing, adminKubeconfig, err)
	}
	// A scheduler that is up always has metrics: nothing means something
	// other than the scheduler answered.
	if len(bytes.TrimSpace(out)) == 0 {
		return "", fmt.Errorf("%s: kube-scheduler's metrics at %s/metrics came back empty", name, schedulerServing)
	}
	return string(out), nil
}

package localcp

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localproc"
	"github.com/draconform/draconform/tools/cluster/promtext"
)

var (
	_ cluster.SchedulerLatency = (*Cluster)(nil)
	_ cluster.SchedulerMetrics = (*Cluster)(nil)
)

// SchedulerLatency implements cluster.SchedulerLatency from the running
// scheduler's /metrics: scheduler_pod_scheduling_sli_duration_seconds
// runs from a pod's first entry into the queue to its binding, the
// scheduler's own share of a case's wait for a pod.
func (c *Cluster) SchedulerLatency(ctx context.Context) (cluster.Latency, error) {
	text, err := c.SchedulerMetrics(ctx)
	if err != nil {
		return cluster.Latency{}, err
	}
	return parseSLI(text)
}

// maxMetrics bounds what is read of /metrics: a scheduler's is a few
// hundred KiB.
const maxMetrics = 16 << 20

// SchedulerMetrics implements cluster.SchedulerMetrics: the running
// scheduler serves /metrics on loopback without a token (see
// schedulerArgs).
func (c *Cluster) SchedulerMetrics(ctx context.Context) (string, error) {
	c.mu.Lock()
	port := c.schedPort
	c.mu.Unlock()
	if port == 0 {
		return "", fmt.Errorf("local: cell %s runs no scheduler", c.cell)
	}
	pr := localproc.InsecureProbe(fmt.Sprintf("https://127.0.0.1:%d/metrics", port))
	resp, err := pr.Do(ctx)
	if err != nil {
		return "", fmt.Errorf("local: reading the scheduler's metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return "", fmt.Errorf("local: the scheduler's metrics: %s: %s", resp.Status, body)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetrics))
	if err != nil {
		return "", fmt.Errorf("local: reading the scheduler's metrics: %w", err)
	}
	return string(data), nil
}

// parseSLI sums the SLI histogram's _sum and _count over its labels. The
// figures are a benchmark's, so a line it cannot read is passed over.
func parseSLI(text string) (cluster.Latency, error) {
	const name = "scheduler_pod_scheduling_sli_duration_seconds"
	seconds, _, err := promtext.SumSkipping(text, name+"_sum", nil)
	if err != nil {
		return cluster.Latency{}, err
	}
	pods, _, err := promtext.SumSkipping(text, name+"_count", nil)
	if err != nil {
		return cluster.Latency{}, err
	}
	return cluster.Latency{Seconds: seconds, Pods: int(pods)}, nil
}

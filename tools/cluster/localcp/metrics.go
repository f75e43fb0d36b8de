package localcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/draconform/draconform/tools/cluster"
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
	return parseSLI(strings.NewReader(text))
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
	pr := insecureProbe(fmt.Sprintf("https://127.0.0.1:%d/metrics", port))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pr.url, nil)
	if err != nil {
		return "", err
	}
	resp, err := pr.client.Do(req)
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

// parseSLI sums the SLI histogram's _sum and _count over its labels.
func parseSLI(r io.Reader) (cluster.Latency, error) {
	const name = "scheduler_pod_scheduling_sli_duration_seconds"
	var l cluster.Latency
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		metric, value, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		base, _, _ := strings.Cut(metric, "{")
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			continue
		}
		switch base {
		case name + "_sum":
			l.Seconds += v
		case name + "_count":
			l.Pods += int(v)
		}
	}
	return l, sc.Err()
}

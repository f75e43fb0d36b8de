package steps_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/spec"
)

// metricsCluster serves kube-scheduler's metrics as set.
type metricsCluster struct {
	mu   sync.Mutex
	text string
}

func (m *metricsCluster) Name() string             { return "fake/cell" }
func (m *metricsCluster) RESTConfig() *rest.Config { return &rest.Config{} }
func (m *metricsCluster) Gates() cluster.GateState { return nil }
func (m *metricsCluster) TailLog(context.Context, cluster.Component, int) (string, error) {
	return "", cluster.ErrNoLog
}
func (m *metricsCluster) set(text string) { m.mu.Lock(); m.text = text; m.mu.Unlock() }
func (m *metricsCluster) SchedulerMetrics(context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.text, nil
}

func unschedulablePods(dra, fit string) string {
	return `# HELP scheduler_unschedulable_pods [BETA] The number of unschedulable pods broken down by plugin name.
# TYPE scheduler_unschedulable_pods gauge
scheduler_unschedulable_pods{plugin="DynamicResources",profile="default-scheduler"} ` + dra + `
scheduler_unschedulable_pods{plugin="NodeResourcesFit",profile="default-scheduler"} ` + fit + `
scheduler_pending_pods{queue="unschedulable"} 1
`
}

// The metric the PRR names must rise for an unschedulable pod; a count
// under another plugin, a metric that stays put, a bound pod, or metrics
// that cannot be read never pass.
func TestExpectSchedulerMetric(t *testing.T) {
	tests := []struct {
		name       string
		pod        string
		node       string
		noMetrics  bool
		now, later string
		fails      []string
		skip       string
		measured   string
	}{
		{name: "rises", pod: unschedulableStatus, now: unschedulablePods("0", "0"), later: unschedulablePods("1", "0"),
			measured: `kube-scheduler's scheduler_unschedulable_pods{plugin="DynamicResources"}: 1 while pod p1 was unschedulable`},
		{name: "counted under another plugin", pod: unschedulableStatus, now: unschedulablePods("0", "1"), later: unschedulablePods("0", "1"),
			fails: []string{`scheduler_unschedulable_pods{plugin="DynamicResources"} stayed at 0`, "want at least 1"}},
		{name: "no such series", pod: unschedulableStatus, now: "scheduler_pending_pods{queue=\"active\"} 0\n", later: "scheduler_pending_pods{queue=\"active\"} 0\n",
			fails: []string{"has no series scheduler_unschedulable_pods", "misconfigured class"}},
		{name: "pod bound", node: node1, now: unschedulablePods("1", "0"), later: unschedulablePods("1", "0"),
			fails: []string{"pod p1 is bound to"}},
		{name: "unreadable", pod: unschedulableStatus, now: "scheduler_unschedulable_pods{plugin=\"DynamicResources\" 1\n", later: "",
			fails: []string{"metrics line 1", "malformed labels"}},
		{name: "provider cannot read them", pod: unschedulableStatus, noMetrics: true,
			skip: "cannot reach"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			f.SeedYAML("p1", podYAML("p1", tt.node, tt.pod))
			m := &metricsCluster{text: tt.now}
			f.Env.Cluster = m
			if tt.noMetrics {
				f.Env.Cluster = &restarter{} // a cluster with no metrics to read
			}
			f.Later(300*time.Millisecond, func() { m.set(tt.later) })
			err := run(t, f, &steps.ExpectSchedulerMetric{Spec: &spec.ExpectSchedulerMetric{
				Pod: "p1", Metric: "scheduler_unschedulable_pods", Labels: map[string]string{"plugin": "DynamicResources"},
				AtLeast: 1, Within: spec.Duration(2 * time.Second)}})
			if tt.skip != "" {
				na, ok := steps.AsNotApplicable(err)
				if !ok || !strings.Contains(na.Reason, tt.skip) {
					t.Fatalf("the case must not apply (%q): %v", tt.skip, err)
				}
				return
			}
			check(t, err, tt.fails)
			if got := strings.Join(f.Env.Measurements(), "\n"); tt.measured != "" && got != tt.measured {
				t.Errorf("measured %q, want %q", got, tt.measured)
			}
		})
	}
}

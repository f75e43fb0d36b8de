package steps

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/promtext"
	"github.com/draconform/draconform/tools/lang/spec"
)

const (
	defaultMetricWithin = 30 * time.Second
	maxMetricWithin     = 2 * time.Minute
	metricPoll          = 500 * time.Millisecond
	// causeNoMetrics is the golden table's word for a metrics case on a
	// cluster whose scheduler metrics the provider cannot read.
	causeNoMetrics = "kube-scheduler's metrics cannot be read on this cluster"
)

var metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// ExpectSchedulerMetric waits for a pod to be found unschedulable, then
// for one of kube-scheduler's own metrics to reach a value: the signal the
// KEP's PRR tells operators to watch. The case runs alone, so that the
// scheduler's gauges count no other case's pods.
type ExpectSchedulerMetric struct{ Spec *spec.ExpectSchedulerMetric }

// Describe implements Step.
func (s *ExpectSchedulerMetric) Describe() string {
	return fmt.Sprintf("while pod %s is unschedulable, kube-scheduler's %s reaches at least %g", s.Spec.Pod, s.series(), s.Spec.AtLeast)
}

func (s *ExpectSchedulerMetric) series() string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(s.Spec.Labels)) {
		kv = append(kv, fmt.Sprintf("%s=%q", k, s.Spec.Labels[k]))
	}
	return s.Spec.Metric + "{" + strings.Join(kv, ",") + "}"
}

// Run implements Step.
func (s *ExpectSchedulerMetric) Run(ctx context.Context, env *Env) error {
	reader, ok := cluster.SchedulerMetricsOf(env.Cluster)
	if !ok {
		return &NotApplicable{Cause: causeNoMetrics, Reason: fmt.Sprintf("expectSchedulerMetric reads %s from kube-scheduler's /metrics, which the provider of this cluster cannot reach (the embedded control planes and kind read them)", s.series())}
	}
	err := watchPod(ctx, env, s.Spec.Pod, defaultScheduleWithin, func(p *corev1.Pod) error {
		if p.Spec.NodeName != "" {
			return fmt.Errorf("pod %s is bound to %s; it must be unschedulable", s.Spec.Pod, p.Spec.NodeName)
		}
		if c := podScheduledCondition(p); c == nil || c.Status != corev1.ConditionFalse {
			return notYet{"pod " + s.Spec.Pod + " has not been found unschedulable yet; " + schedulingState(p)}
		}
		return nil
	})
	if err != nil {
		return err
	}
	within := s.Spec.Within.Or(defaultMetricWithin)
	deadline := time.Now().Add(within)
	var last float64
	var series int
	for {
		text, err := reader.SchedulerMetrics(ctx)
		if err != nil {
			return fmt.Errorf("reading kube-scheduler's metrics: %w", err)
		}
		last, series, err = promtext.Sum(text, s.Spec.Metric, s.Spec.Labels)
		if err != nil {
			return fmt.Errorf("kube-scheduler's metrics: %w", err)
		}
		if last >= s.Spec.AtLeast {
			env.Measure(fmt.Sprintf("kube-scheduler's %s: %g while pod %s was unschedulable", s.series(), last, s.Spec.Pod))
			return nil
		}
		if time.Now().After(deadline) {
			if series == 0 {
				return fmt.Errorf("kube-scheduler has no series %s within %s of pod %s being unschedulable; the PRR names it as the signal of a misconfigured class", s.series(), within, s.Spec.Pod)
			}
			return fmt.Errorf("kube-scheduler's %s stayed at %g within %s of pod %s being unschedulable, want at least %g", s.series(), last, within, s.Spec.Pod, s.Spec.AtLeast)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(metricPoll):
		}
	}
}

func checkExpectSchedulerMetric(c Checker, st *spec.Step) {
	m := st.ExpectSchedulerMetric
	c.Need(st.Pos, spec.RefOf("Pod", m.Pod))
	if !metricName.MatchString(m.Metric) {
		c.Problem(st.Pos, "e.g. metric: scheduler_unschedulable_pods", "expectSchedulerMetric: metric: %q is not a metric name", m.Metric)
	}
	if m.AtLeast < 1 {
		c.Problem(st.Pos, "e.g. atLeast: 1", "expectSchedulerMetric needs atLeast: of at least 1: a metric that may stay at 0 checks nothing")
	}
	if time.Duration(m.Within) > maxMetricWithin {
		c.Problem(st.Pos, "e.g. within: 30s", "expectSchedulerMetric: within: must be at most %s", maxMetricWithin)
	}
}

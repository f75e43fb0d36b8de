package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/spec"
)

const defaultHotLoopWindow = 20 * time.Second

// ExpectNoHotLoop watches an unschedulable pod over a window: it must stay
// unbound, kube-scheduler must keep its run, log no panic, and log at most
// MaxAttempts failed attempts for the pod; the count is reported as a
// measurement. kube-scheduler's run is read from the provider where it
// shows it (the embedded control planes, kind), else through the API from
// the static pod kubeadm runs it in. Where neither shows it, or the
// scheduler does not log its attempts (it does at --v=2), the step cannot
// count them and ends the case as not applicable: it never passes unmeasured.
type ExpectNoHotLoop struct{ Spec *spec.ExpectNoHotLoop }

// Describe implements Step.
func (s *ExpectNoHotLoop) Describe() string {
	if s.Spec.Baseline != "" {
		return fmt.Sprintf("over %s, pod %s stays pending and kube-scheduler neither panics, restarts nor tries it more than twice as often as pod %s, plus %d",
			s.Spec.Over.Or(defaultHotLoopWindow), s.Spec.Pod, s.Spec.Baseline, s.Spec.MaxAttempts)
	}
	return fmt.Sprintf("over %s, pod %s stays pending and kube-scheduler neither panics, restarts nor tries it more than %d times",
		s.Spec.Over.Or(defaultHotLoopWindow), s.Spec.Pod, s.Spec.MaxAttempts)
}

// unschedulablePod waits until the scheduler has given up on a pod at
// least once, so that its log already shows an attempt.
func unschedulablePod(ctx context.Context, env *Env, local string) (*corev1.Pod, error) {
	var pod *corev1.Pod
	err := watchPod(ctx, env, local, defaultScheduleWithin, func(p *corev1.Pod) error {
		if p.Spec.NodeName != "" {
			return fmt.Errorf("pod %s is bound to %s; it must stay pending", local, p.Spec.NodeName)
		}
		if c := podScheduledCondition(p); c == nil || c.Status != corev1.ConditionFalse {
			return notYet{"pod " + local + " has not been found unschedulable yet; " + schedulingState(p)}
		}
		pod = p
		return nil
	})
	return pod, err
}

// Run implements Step.
func (s *ExpectNoHotLoop) Run(ctx context.Context, env *Env) error {
	window := s.Spec.Over.Or(defaultHotLoopWindow)
	pod, err := unschedulablePod(ctx, env, s.Spec.Pod)
	if err != nil {
		return err
	}
	limit := attemptLimit{max: s.Spec.MaxAttempts}
	if s.Spec.Baseline != "" {
		base, err := unschedulablePod(ctx, env, s.Spec.Baseline)
		if err != nil {
			return fmt.Errorf("the baseline: %w", err)
		}
		limit.baseline, limit.baselineKey = s.Spec.Baseline, base.Namespace+"/"+base.Name
	}
	inspector, err := schedulerRuns(ctx, env)
	if err != nil {
		return err
	}
	before, err := inspector.CurrentRun(ctx, cluster.Scheduler)
	if err != nil {
		return fmt.Errorf("reading kube-scheduler's run: %w", err)
	}
	began := time.Now()
	ri := env.Clients.Dyn.Resource(podGVR).Namespace(env.Namespace)
	err = holdFor(ctx, ri, pod.Name, window, func(u *unstructured.Unstructured) error {
		if node, _, _ := unstructured.NestedString(u.Object, "spec", "nodeName"); node != "" {
			return fmt.Errorf("pod %s got bound to %s %s into the window; it must stay pending", s.Spec.Pod, node, time.Since(began).Round(time.Second))
		}
		return notYet{"pending"}
	})
	if err != nil {
		return err
	}
	after, err := inspector.CurrentRun(ctx, cluster.Scheduler)
	if err != nil {
		return fmt.Errorf("reading kube-scheduler's run: %w", err)
	}
	return judgeSchedulerRun(env, before, after, pod.Namespace+"/"+pod.Name, s.Spec.Pod, window, limit)
}

// attemptLimit is how many attempts at the pod a window allows: max, or,
// with a baseline pod, twice the baseline's attempts plus max.
type attemptLimit struct {
	max                   int
	baseline, baselineKey string
}

// causeNoAttempts is the golden table's word for a hot-loop case that
// cannot count kube-scheduler's attempts.
const causeNoAttempts = "kube-scheduler's attempts cannot be counted on this cluster"

// schedulerRuns is what shows kube-scheduler's run: the provider, or the
// API. Where nothing does, the case does not apply.
func schedulerRuns(ctx context.Context, env *Env) (cluster.RunInspector, error) {
	if ri, ok := cluster.RunInspectorOf(env.Cluster); ok {
		return ri, nil
	}
	api := apiSchedulerRuns{env: env}
	if _, err := api.pods(ctx); err != nil {
		if errors.Is(err, errNoSchedulerPod) || apierrors.IsForbidden(err) {
			return nil, &NotApplicable{Cause: causeNoAttempts, Reason: "expectNoHotLoop counts kube-scheduler's attempts at the pod from its log, and this cluster shows it nowhere: the provider cannot read kube-scheduler's run, and through the API " + err.Error()}
		}
		return nil, fmt.Errorf("looking for kube-scheduler's pods: %w", err)
	}
	// draconform rbac grants no log read outside the run's namespaces,
	// kube-system's included: there the log is not the runner's to read.
	if _, err := api.CurrentRun(ctx, cluster.Scheduler); apierrors.IsForbidden(err) {
		return nil, &NotApplicable{Cause: causeNoAttempts, Reason: "expectNoHotLoop counts kube-scheduler's attempts at the pod from its log, and these credentials may not read it (draconform rbac grants log reads only in the run's own namespaces, never kube-system's): " + err.Error()}
	}
	return api, nil
}

// judgeSchedulerRun compares kube-scheduler's run before and after the
// window.
func judgeSchedulerRun(env *Env, before, after cluster.Run, key, local string, window time.Duration, limit attemptLimit) error {
	if after.ID != before.ID || !after.Running {
		return fmt.Errorf("kube-scheduler did not keep its run over the window: run %s (running) became %s (running=%v); an unschedulable pod must not crash or restart it", before.ID, after.ID, after.Running)
	}
	if line := panicLine(after.Log); line != "" {
		return fmt.Errorf("kube-scheduler logged a panic while pod %s was pending:\n%s", local, line)
	}
	atStart, atEnd := attempts(before.Log, key), attempts(after.Log, key)
	if atEnd == 0 {
		// The pod was reported unschedulable before the window, so
		// kube-scheduler has tried it: a log without a line for it is a
		// log that does not say.
		return &NotApplicable{Cause: causeNoAttempts, Reason: fmt.Sprintf("kube-scheduler logged no attempt at pod %s in %s, although the pod was reported unschedulable: it logs its attempts at --v=2 (on kubeadm and kind, scheduler extraArgs v: \"2\"), so the attempts of a hot loop cannot be counted here", local, window)}
	}
	n := atEnd - atStart
	if limit.baseline == "" {
		env.Measure(fmt.Sprintf("scheduling attempts for pod %s over %s: %d (%d before the window)", local, window, n, atStart))
		if n > limit.max {
			return fmt.Errorf("kube-scheduler tried pod %s %d times in %s, more than the %d backoff allows: it retries an unschedulable pod in a hot loop", local, n, window, limit.max)
		}
		return nil
	}
	b := attempts(after.Log, limit.baselineKey) - attempts(before.Log, limit.baselineKey)
	allowed := 2*b + limit.max
	env.Measure(fmt.Sprintf("scheduling attempts over %s: pod %s %d, baseline pod %s %d (allowed: twice the baseline plus %d, %d)", window, local, n, limit.baseline, b, limit.max, allowed))
	if n > allowed {
		return fmt.Errorf("kube-scheduler tried pod %s %d times in %s, while it tried pod %s, pending for a reason KEP-6406 has no part in, %d times: more than twice that plus %d (%d), so it retries the pod in a hot loop", local, n, window, limit.baseline, b, limit.max, allowed)
	}
	return nil
}

// attempts counts kube-scheduler's log lines for failed attempts to
// schedule the pod namespace/name (schedule_one.go: "Unable to schedule
// pod" at --v=2 for a pod that fits nowhere, "Error scheduling pod" at
// every level for an error). Its
// FailedScheduling events cannot count them: client-go's event broadcaster
// folds repeats into a series whose count it writes back only every 30
// minutes (tools/events refreshTime), so the API shows 1 or 2 however hot
// the loop.
func attempts(log, key string) int {
	n := 0
	for _, l := range strings.Split(log, "\n") {
		if (strings.Contains(l, "Unable to schedule pod") || strings.Contains(l, "Error scheduling pod; retrying")) && strings.Contains(l, `pod="`+key+`"`) {
			n++
		}
	}
	return n
}

// panicLine is the first line of a panic in a log: a recovered one
// (runtime.HandleCrash logs "Observed a panic") or a fatal one.
func panicLine(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "Observed a panic") || strings.HasPrefix(l, "panic: ") {
			return l
		}
	}
	return ""
}

// maxHotLoopWindow bounds expectNoHotLoop's window, which every run waits out.
const maxHotLoopWindow = 2 * time.Minute

func checkExpectNoHotLoop(c Checker, st *spec.Step) {
	c.Need(st.Pos, spec.RefOf("Pod", st.ExpectNoHotLoop.Pod))
	if b := st.ExpectNoHotLoop.Baseline; b != "" {
		c.Need(st.Pos, spec.RefOf("Pod", b))
		if b == st.ExpectNoHotLoop.Pod {
			c.Problem(st.Pos, "a pod pending for a reason KEP-6406 has no part in", "expectNoHotLoop: the baseline is the pod itself")
		}
	}
	if time.Duration(st.ExpectNoHotLoop.Over) > maxHotLoopWindow {
		c.Problem(st.Pos, "e.g. over: 20s", "expectNoHotLoop: over: must be at most %s", maxHotLoopWindow)
	}
	if st.ExpectNoHotLoop.MaxAttempts < 1 {
		c.Problem(st.Pos, "e.g. maxAttempts: 10", "expectNoHotLoop needs maxAttempts: of at least 1")
	}
}

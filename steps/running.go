package steps

import (
	"bufio"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/draconform/draconform/tools/spec"
)

const defaultRunningWithin = 2 * time.Minute

// ExpectRunning waits until a pod runs on a real kubelet, then reads what
// its container printed: the test driver's workload prints the DRACONFORM_*
// variables its CDI spec injected, which is the allocation the container
// really got (device, shareID, consumed capacity), not what the API says.
type ExpectRunning struct{ Spec *spec.ExpectRunning }

// envFrom adds the map a variable holds to want.
func envFrom(env *Env, ref string, want map[string]string) error {
	names := spec.VarRefs(ref)
	if len(names) != 1 || ref != "${"+names[0]+"}" {
		return fmt.Errorf("envFrom %q: write one variable, e.g. ${profileEnv}", ref)
	}
	n, ok := env.Scope().Lookup(names[0])
	if !ok {
		return fmt.Errorf("envFrom: no variable %s", names[0])
	}
	var m map[string]string
	if err := n.Decode(&m); err != nil {
		return fmt.Errorf("envFrom %s: a map of names to values: %w", ref, err)
	}
	for k, v := range m {
		want[k] = v
	}
	return nil
}

// Describe implements Step.
func (s *ExpectRunning) Describe() string {
	if len(s.Spec.Env) == 0 && s.Spec.EnvFrom == "" {
		return "pod " + s.Spec.Pod + " is running"
	}
	if s.Spec.EnvFrom != "" {
		return fmt.Sprintf("pod %s is running with %d variables and those of %s as expected", s.Spec.Pod, len(s.Spec.Env), s.Spec.EnvFrom)
	}
	return fmt.Sprintf("pod %s is running with %d variables as expected", s.Spec.Pod, len(s.Spec.Env))
}

// Run implements Step.
func (s *ExpectRunning) Run(ctx context.Context, env *Env) error {
	container := s.Spec.Container
	err := watchPod(ctx, env, s.Spec.Pod, s.Spec.Within.Or(defaultRunningWithin), func(pod *corev1.Pod) error {
		if container == "" && len(pod.Spec.Containers) > 0 {
			container = pod.Spec.Containers[0].Name
		}
		return running(pod, container)
	})
	if err != nil {
		return fmt.Errorf("pod %s must run: %w", s.Spec.Pod, err)
	}
	if len(s.Spec.Env) == 0 && s.Spec.EnvFrom == "" {
		return nil
	}
	want := map[string]string{}
	for k, v := range s.Spec.Env {
		if want[k], err = env.Scope().String(v); err != nil {
			return err
		}
	}
	if s.Spec.EnvFrom != "" {
		if err := envFrom(env, s.Spec.EnvFrom, want); err != nil {
			return err
		}
	}
	name, err := env.PodName(s.Spec.Pod)
	if err != nil {
		return err
	}
	// The workload prints once at start; a log read right after the
	// container starts may still be empty, so read until every variable
	// is there or the bound passes.
	var last error
	within := time.Duration(s.Spec.Within.Or(defaultRunningWithin))
	err = wait.PollUntilContextTimeout(ctx, time.Second, within, true, func(ctx context.Context) (bool, error) {
		text, err := env.containerLog(ctx, name, container)
		if err != nil {
			last = fmt.Errorf("reading the log of pod %s, container %s: %w", s.Spec.Pod, container, err)
			return false, nil
		}
		last = compareEnv(printedEnv(text), want)
		if _, final := last.(envMismatch); final {
			return false, last
		}
		return last == nil, nil
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("pod %s: %w (last: %v)", s.Spec.Pod, ctx.Err(), last)
	case wait.Interrupted(err):
		return fmt.Errorf("pod %s, container %s: %w", s.Spec.Pod, container, last)
	}
	return fmt.Errorf("pod %s, container %s: %w", s.Spec.Pod, container, err)
}

// running says whether the container has started, or why not yet; a
// container that failed to start is final, not a reason to wait.
func running(pod *corev1.Pod, container string) error {
	switch pod.Status.Phase {
	case corev1.PodFailed, corev1.PodSucceeded:
		return fmt.Errorf("pod %s ended (phase %s): the workload must keep running", pod.Name, pod.Status.Phase)
	}
	if pod.Spec.NodeName == "" {
		return notYet{"pod " + pod.Name + " is not bound; " + schedulingState(pod)}
	}
	for _, st := range pod.Status.ContainerStatuses {
		if st.Name != container {
			continue
		}
		if st.State.Running != nil {
			return nil
		}
		if w := st.State.Waiting; w != nil {
			// CreateContainerError is where a bad CDI spec or a failed
			// NodePrepareResources shows; it is retried, so it stays notYet
			// with the message, and the bound reports it.
			return notYet{fmt.Sprintf("container %s is waiting: %s %s", container, w.Reason, w.Message)}
		}
		if t := st.State.Terminated; t != nil {
			return fmt.Errorf("container %s terminated: %s (exit %d) %s", container, t.Reason, t.ExitCode, t.Message)
		}
	}
	return notYet{fmt.Sprintf("pod %s is %s on node %s; container %s has not started", pod.Name, pod.Status.Phase, pod.Spec.NodeName, container)}
}

func (env *Env) containerLog(ctx context.Context, pod, container string) (string, error) {
	if env.Clients.Logs != nil {
		return env.Clients.Logs(ctx, env.Namespace, pod, container)
	}
	raw, err := env.Clients.Kube.CoreV1().Pods(env.Namespace).GetLogs(pod, &corev1.PodLogOptions{Container: container}).Do(ctx).Raw()
	return string(raw), err
}

// printedEnv parses the workload's KEY=VALUE lines.
func printedEnv(log string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok && strings.HasPrefix(k, "DRACONFORM_") {
			out[k] = v
		}
	}
	return out
}

// envMismatch is a variable with a wrong value: final, since the workload
// prints once; a missing variable may still be on its way.
type envMismatch struct{ msg string }

func (e envMismatch) Error() string { return e.msg }

func compareEnv(got, want map[string]string) error {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var missing, wrong []string
	for _, k := range keys {
		v, ok := got[k]
		switch {
		case !ok || (want[k] == "<any>" && v == ""):
			missing = append(missing, k)
		case want[k] != "<any>" && v != want[k]:
			wrong = append(wrong, fmt.Sprintf("%s=%q, want %q", k, v, want[k]))
		}
	}
	printed := make([]string, 0, len(got))
	for k, v := range got {
		printed = append(printed, k+"="+v)
	}
	sort.Strings(printed)
	switch {
	case len(wrong) > 0:
		return envMismatch{fmt.Sprintf("the container got %s (it printed: %s)", strings.Join(wrong, ", "), strings.Join(printed, " "))}
	case len(missing) > 0:
		return fmt.Errorf("the container did not print %s (it printed: %s)", strings.Join(missing, ", "), orNothing(printed))
	}
	return nil
}

func orNothing(list []string) string {
	if len(list) == 0 {
		return "nothing"
	}
	return strings.Join(list, " ")
}

func checkExpectRunning(c Checker, st *spec.Step) {
	c.Need(st.Pos, spec.RefOf("Pod", st.ExpectRunning.Pod))
	if !c.Case().Requires.Kubelet() {
		c.Problem(st.Pos, "", "expectRunning needs requires: {testDriver: true} or {driverProfile: true}: pods only run where a kubelet and a driver are")
	}
}

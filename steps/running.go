package steps

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/draconform/draconform/tools/lang/spec"
)

const defaultRunningWithin = 2 * time.Minute

// ExpectRunning waits until a pod runs on a real kubelet, then reads what
// its container printed: its environment, as the driver's CDI spec made it
// (the test driver's DRACONFORM_* variables name the allocation the
// container really got: device, shareID, consumed capacity; another
// driver's have names of their own), and any other text the workload
// printed of a file or a tool inside the container.
type ExpectRunning struct{ Spec *spec.ExpectRunning }

// fromVar decodes the value of the one variable ref names into v (a map
// for envFrom, a list for outputFrom).
func fromVar(env *Env, field, ref string, v any) error {
	names := spec.VarRefs(ref)
	if len(names) != 1 || ref != "${"+names[0]+"}" {
		return fmt.Errorf("%s %q: write one variable, e.g. ${profileEnv}", field, ref)
	}
	n, ok := env.Scope().Lookup(names[0])
	if !ok {
		return fmt.Errorf("%s: no variable %s", field, names[0])
	}
	if err := n.Decode(v); err != nil {
		return fmt.Errorf("%s %s: %w", field, ref, err)
	}
	return nil
}

// wanted is what the step expects of the container's log.
func (s *ExpectRunning) wanted(env *Env) (map[string]string, []string, error) {
	want := map[string]string{}
	for k, v := range s.Spec.Env {
		var err error
		if want[k], err = env.Scope().String(v); err != nil {
			return nil, nil, err
		}
	}
	if s.Spec.EnvFrom != "" {
		var m map[string]string
		if err := fromVar(env, "envFrom", s.Spec.EnvFrom, &m); err != nil {
			return nil, nil, err
		}
		maps.Copy(want, m)
	}
	var output []string
	for _, o := range s.Spec.Output {
		text, err := env.Scope().String(o)
		if err != nil {
			return nil, nil, err
		}
		output = append(output, text)
	}
	if s.Spec.OutputFrom != "" {
		var list []string
		if err := fromVar(env, "outputFrom", s.Spec.OutputFrom, &list); err != nil {
			return nil, nil, err
		}
		output = append(output, list...)
	}
	return want, output, nil
}

// Describe implements Step.
func (s *ExpectRunning) Describe() string {
	if len(s.Spec.Output) > 0 || s.Spec.OutputFrom != "" {
		return fmt.Sprintf("pod %s is running, and printed the variables and the text expected of it", s.Spec.Pod)
	}
	if len(s.Spec.Env) == 0 && s.Spec.EnvFrom == "" {
		return "pod " + s.Spec.Pod + " is running"
	}
	if s.Spec.EnvFrom != "" {
		return fmt.Sprintf("pod %s is running with %d variables and those of %s as expected", s.Spec.Pod, len(s.Spec.Env), s.Spec.EnvFrom)
	}
	return fmt.Sprintf("pod %s is running with %d variables as expected", s.Spec.Pod, len(s.Spec.Env))
}

// awaitRunning waits for the pod's container to run: the one the step
// names, or the pod's first.
func (s *ExpectRunning) awaitRunning(ctx context.Context, env *Env) (string, error) {
	container := s.Spec.Container
	err := watchPod(ctx, env, s.Spec.Pod, s.Spec.Within.Or(defaultRunningWithin), func(pod *corev1.Pod) error {
		if container == "" && len(pod.Spec.Containers) > 0 {
			container = pod.Spec.Containers[0].Name
		}
		return running(pod, container)
	})
	if err != nil {
		return "", fmt.Errorf("pod %s must run: %w", s.Spec.Pod, err)
	}
	return container, nil
}

// Run implements Step.
func (s *ExpectRunning) Run(ctx context.Context, env *Env) error {
	container, err := s.awaitRunning(ctx, env)
	if err != nil {
		return err
	}
	want, output, err := s.wanted(env)
	if err != nil {
		return err
	}
	if want, err = fillDevice(ctx, env, s.Spec.Pod, container, want); err != nil {
		return err
	}
	if len(want) == 0 && len(output) == 0 {
		return nil
	}
	name, err := env.PodName(s.Spec.Pod)
	if err != nil {
		return err
	}
	// The workload prints once at start; a log read right after the
	// container starts may still be empty, so read until every variable
	// is there or the bound passes.
	var last error
	var printed map[string]string
	within := time.Duration(s.Spec.Within.Or(defaultRunningWithin))
	defer func(began time.Time) { AddPhase(ctx, PhaseWaiting, time.Since(began)) }(time.Now())
	err = wait.PollUntilContextTimeout(ctx, time.Second, within, true, func(ctx context.Context) (bool, error) {
		text, err := env.containerLog(ctx, name, container)
		if err != nil {
			last = fmt.Errorf("reading the log of pod %s, container %s: %w", s.Spec.Pod, container, err)
			return false, nil
		}
		printed = printedEnv(text)
		last = compareEnv(printed, want)
		if _, final := last.(envMismatch); final {
			return false, last
		}
		if last == nil {
			last = missingOutput(text, output)
		}
		return last == nil, nil
	})
	switch {
	case err == nil:
		// What was checked goes into the outcome, so that a reviewer
		// reads what the container saw of its share, not only "passed".
		env.Measure(checkedEnv(s.Spec.Pod, container, want, printed, len(output)))
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("pod %s: %w (last: %v)", s.Spec.Pod, ctx.Err(), last)
	case wait.Interrupted(err):
		return fmt.Errorf("pod %s, container %s: %w", s.Spec.Pod, container, last)
	}
	return fmt.Errorf("pod %s, container %s: %w", s.Spec.Pod, container, err)
}

// The placeholders a variable's name or value may hold for the device the
// pod was given: a driver names its variables by the device, and the KEP
// promises a share of some device with room, never which one.
const (
	devicePlaceholder       = "<device>"
	deviceNumberPlaceholder = "<deviceNumber>"
	// resultPlaceholder is the place of the container's result in its
	// claim's allocation, by which a driver may number the variables of a
	// container that holds one of several devices or shares of the claim.
	resultPlaceholder = "<result>"
)

var trailingNumber = regexp.MustCompile(`[0-9]+$`)

// fillDevice replaces the placeholders with the device of the container's
// allocation (its name, and the number that ends it: gpu-3 gives 3): the
// results of the requests the pod's status maps to the container, or,
// where it maps none, of the whole pod. A container with more than one
// device cannot fill them: which would it be?
func fillDevice(ctx context.Context, env *Env, pod, container string, want map[string]string) (map[string]string, error) {
	uses := false
	for k, v := range want {
		uses = uses || strings.Contains(k+v, devicePlaceholder) || strings.Contains(k+v, deviceNumberPlaceholder) || strings.Contains(k+v, resultPlaceholder)
	}
	if !uses {
		return want, nil
	}
	allocs, bound, err := podAllocations(ctx, env, pod, defaultScheduleWithin)
	if err != nil {
		return nil, err
	}
	allocs = containerAllocations(bound, container, allocs)
	devices := map[string]bool{}
	for _, a := range allocs {
		devices[a.Device] = true
	}
	if len(devices) != 1 {
		return nil, fmt.Errorf("pod %s, container %s: the expected variables name %s, %s or %s, but the container has %d devices (%s), not one", pod, container, devicePlaceholder, deviceNumberPlaceholder, resultPlaceholder, len(devices), describeAllocations([]string{pod}, map[string][]allocation{pod: allocs}))
	}
	device := allocs[0].Device[strings.LastIndex(allocs[0].Device, "/")+1:]
	number := trailingNumber.FindString(device)
	result := ""
	if len(allocs) == 1 {
		result = strconv.Itoa(allocs[0].Index)
	}
	r := strings.NewReplacer(devicePlaceholder, device, deviceNumberPlaceholder, number, resultPlaceholder, result)
	out := map[string]string{}
	for k, v := range want {
		if result == "" && strings.Contains(k+v, resultPlaceholder) {
			return nil, fmt.Errorf("pod %s, container %s: the expected variable %s names %s, but the container holds %d results of its claim on device %s, not one", pod, container, k, resultPlaceholder, len(allocs), device)
		}
		if number == "" && strings.Contains(k+v, deviceNumberPlaceholder) {
			return nil, fmt.Errorf("pod %s: the expected variable %s names %s, but device %s does not end in a number", pod, k, deviceNumberPlaceholder, device)
		}
		out[r.Replace(k)] = r.Replace(v)
	}
	return out, nil
}

// containerAllocations keeps, of a pod's allocations, those of the requests
// its status.extendedResourceClaimStatus maps to the container: in a pod of
// two containers, each sees the share of its own request, which may be on
// another device than the other's. Where the status maps no request to the
// container, all are kept.
func containerAllocations(p *corev1.Pod, container string, allocs []allocation) []allocation {
	st := p.Status.ExtendedResourceClaimStatus
	if st == nil {
		return allocs
	}
	requests := map[string]bool{}
	for _, m := range st.RequestMappings {
		if m.ContainerName == container {
			requests[m.RequestName] = true
		}
	}
	if len(requests) == 0 {
		return allocs
	}
	var out []allocation
	for _, a := range allocs {
		if a.Claim != st.ResourceClaimName || requests[a.Request] {
			out = append(out, a)
		}
	}
	return out
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
	// A sidecar (an init container that restarts always) runs beside the
	// main containers, and its status is among the init containers'.
	statuses := append(slices.Clone(pod.Status.ContainerStatuses), pod.Status.InitContainerStatuses...)
	for _, st := range statuses {
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
	var text string
	var err error
	if env.Clients.Logs != nil {
		text, err = env.Clients.Logs(ctx, env.Namespace, pod, container)
	} else {
		var raw []byte
		raw, err = env.Clients.Kube.CoreV1().Pods(env.Namespace).GetLogs(pod, &corev1.PodLogOptions{Container: container}).Do(ctx).Raw()
		text = string(raw)
	}
	if apierrors.IsForbidden(err) {
		// Log reads are granted only in the case's namespace, by a
		// binding the runner makes there; the caller polls, and reads
		// again once the API server's authorizer has seen it.
		if gerr := env.grantLogs(ctx); gerr != nil {
			return "", fmt.Errorf("%w; %w", err, gerr)
		}
	}
	return text, err
}

// envName is what a shell, and so a driver's CDI spec, can name a variable.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// printedEnv parses the workload's NAME=VALUE lines, whatever the driver
// calls its variables; a line whose left side is no variable name (a log
// line, an indented line that continues a value) is not one. A name printed twice keeps
// its last value: a container that restarted printed its environment again,
// and the last print is the container that runs.
func printedEnv(log string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		// Not trimmed on the left: an indented line is the rest of a
		// value or of a log message, never a variable.
		if k, v, ok := strings.Cut(strings.TrimRight(sc.Text(), "\r"), "="); ok && envName.MatchString(k) {
			out[k] = v
		}
	}
	return out
}

// missingOutput says which of the texts the log lacks: the workload prints
// once, so one not there yet may still come, until the step's bound.
func missingOutput(log string, texts []string) error {
	var missing []string
	for _, t := range texts {
		if !strings.Contains(log, t) {
			missing = append(missing, strconv.Quote(t))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("the container did not print %s (its log: %s)", strings.Join(missing, ", "), logTail(log, 20))
}

// logTail is the last n lines of a log, for a message.
func logTail(log string, n int) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return "empty"
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// envMismatch is a variable with a wrong value: final, since the workload
// prints once; a missing variable may still be on its way.
type envMismatch struct{ msg string }

func (e envMismatch) Error() string { return e.msg }

// checkedEnv says what a container printed of the variables it was
// checked for (the value itself where the case accepted <any>), and how
// many output lines were found.
func checkedEnv(pod, container string, want, got map[string]string, outputs int) string {
	vars := make([]string, 0, len(want))
	for k := range want {
		if want[k] == unsetValue {
			vars = append(vars, "no "+k)
			continue
		}
		vars = append(vars, k+"="+got[k])
	}
	sort.Strings(vars)
	text := fmt.Sprintf("pod %s, container %s printed", pod, container)
	if len(vars) > 0 {
		text += " " + strings.Join(vars, " ")
	}
	if outputs > 0 {
		text += fmt.Sprintf(" and the %d output lines checked", outputs)
	}
	return text
}

// unsetValue, as a variable's wanted value, says the container must not
// have it.
const unsetValue = "<unset>"

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
		case want[k] == unsetValue:
			// Another container's share, say, which this one must not see.
			if ok {
				wrong = append(wrong, fmt.Sprintf("%s=%q, want it unset", k, v))
			}
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

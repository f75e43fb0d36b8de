package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/testdriver"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// writeDiagnostics saves what a person needs to understand a failed case:
// why it failed and how to rerun it, as the terminal says it, then its pods
// with conditions and events, its claims, the objects it created as stored,
// and the tail of the scheduler's log where the provider has it.
func writeDiagnostics(ctx context.Context, env *steps.Env, c plan.Case, failure, outDir string, rerun report.RerunFlags) (string, error) {
	dir := filepath.Join(outDir, "diagnostics")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, plan.Slug(c.Title())+".txt")
	d := &diagnostics{}
	fmt.Fprintf(&d.b, "case %s\ncluster %s, namespace %s, run %s\n", c.Title(), env.Cluster.Name(), env.Namespace, env.RunID)
	d.section("why it failed")
	d.b.WriteString(report.FailureBlock(failedOutcome(c, failure), "  ", rerun))
	d.pods(ctx, env)
	d.events(ctx, env)
	d.claims(ctx, env)
	d.caseObjects(ctx, env)
	// Where a pod must really run, the cause of a failure is as often on
	// the node as in the scheduler.
	onNode := c.Case.Requires.Kubelet()
	d.componentLogs(ctx, env, onNode)
	if onNode {
		if err := writeDriverLogs(ctx, &d.b, env, d.section); err != nil {
			d.cannotRead("test driver logs", err)
		}
	}
	if err := os.WriteFile(path, []byte(d.b.String()), 0o644); err != nil {
		return "", err
	}
	if len(d.errs) > 0 {
		return path, fmt.Errorf("%s", strings.Join(d.errs, "; "))
	}
	return path, nil
}

// diagnostics is a failed case's diagnostics file as it is written: its
// text, and what could not be read for it (which does not stop the rest).
type diagnostics struct {
	b    strings.Builder
	errs []string
}

func (d *diagnostics) section(title string) { fmt.Fprintf(&d.b, "\n===== %s =====\n", title) }

func (d *diagnostics) cannotRead(what string, err error) {
	d.errs = append(d.errs, what+": "+err.Error())
}

// pods: the namespace's pods, their conditions, extended-resource claim
// status and containers.
func (d *diagnostics) pods(ctx context.Context, env *steps.Env) {
	d.section("pods")
	pods, err := env.Clients.Kube.CoreV1().Pods(env.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		d.cannotRead("pods", err)
		return
	}
	for _, p := range pods.Items {
		fmt.Fprintf(&d.b, "pod %s: node=%q phase=%s\n", p.Name, p.Spec.NodeName, p.Status.Phase)
		for _, cond := range p.Status.Conditions {
			fmt.Fprintf(&d.b, "  condition %s=%s %s: %s\n", cond.Type, cond.Status, cond.Reason, cond.Message)
		}
		if st := p.Status.ExtendedResourceClaimStatus; st != nil {
			fmt.Fprintf(&d.b, "  extendedResourceClaimStatus: claim %s, mappings %+v\n", st.ResourceClaimName, st.RequestMappings)
		}
		writeContainerStatuses(&d.b, p.Status.InitContainerStatuses)
		writeContainerStatuses(&d.b, p.Status.ContainerStatuses)
	}
}

// events: the namespace's events, oldest first.
func (d *diagnostics) events(ctx context.Context, env *steps.Env) {
	d.section("events")
	events, err := env.Clients.Kube.CoreV1().Events(env.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		d.cannotRead("events", err)
		return
	}
	sort.SliceStable(events.Items, func(i, j int) bool { return eventTime(events.Items[i]).Before(eventTime(events.Items[j])) })
	for _, e := range events.Items {
		d.b.WriteString(eventLine(e))
	}
}

// claims: the namespace's resource claims, whole.
func (d *diagnostics) claims(ctx context.Context, env *steps.Env) {
	d.section("resource claims")
	claims, err := env.Clients.Dyn.Resource(steps.ClaimGVR).Namespace(env.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		d.cannotRead("claims", err)
		return
	}
	for _, cl := range claims.Items {
		writeYAML(&d.b, cl.Object)
	}
}

// caseObjects: every object the case made, by ref, as the API server
// stores it now.
func (d *diagnostics) caseObjects(ctx context.Context, env *steps.Env) {
	d.section("objects of the case, as stored")
	objs := env.Objects()
	refs := make([]string, 0, len(objs))
	for r := range objs {
		refs = append(refs, string(r))
	}
	sort.Strings(refs)
	for _, r := range refs {
		o := objs[spec.Ref(r)]
		got, gerr := o.Resource(env.Clients.Dyn).Get(ctx, o.Object.GetName(), metav1.GetOptions{})
		fmt.Fprintf(&d.b, "--- %s (%s)\n", r, o.Object.GetName())
		if gerr != nil {
			fmt.Fprintf(&d.b, "cannot read: %v\n", gerr)
			continue
		}
		writeYAML(&d.b, got)
	}
}

// componentLogs: the end of the scheduler's and the API server's logs, and
// of the kubelet's and containerd's onNode; those the cluster keeps none of
// are left out.
func (d *diagnostics) componentLogs(ctx context.Context, env *steps.Env, onNode bool) {
	comps := []cluster.Component{cluster.Scheduler, cluster.APIServer}
	if onNode {
		comps = append(comps, cluster.Kubelet, cluster.Containerd)
	}
	for _, comp := range comps {
		text, err := env.Cluster.TailLog(ctx, comp, 60)
		if errors.Is(err, cluster.ErrNoLog) {
			continue
		}
		d.section(string(comp) + " log, last 60 lines of its current run")
		d.b.WriteString(text)
		if err != nil {
			d.cannotRead(string(comp)+" log", err)
		}
	}
}

// eventLine is an event on one line: when it last happened, its object,
// reason, message and how often. The scheduler and the kubelet write
// through events.k8s.io, whose events read as core/v1 leave LastTimestamp
// and Count empty and say it in EventTime and Series instead.
func eventLine(e corev1.Event) string {
	count := e.Count
	if count == 0 {
		count = 1
		if e.Series != nil && e.Series.Count > 0 {
			count = e.Series.Count
		}
	}
	return fmt.Sprintf("%s %s/%s %s: %s (x%d)\n", eventTime(e).Format("15:04:05"), e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message, count)
}

// eventTime is when an event last happened, from whichever field its
// writer filled: a core/v1 writer's LastTimestamp, an events.k8s.io
// writer's series or EventTime, else when it was stored.
func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// failedOutcome is the outcome a failed case will have in the report, for
// saying it as the report will.
func failedOutcome(c plan.Case, failure string) report.Outcome {
	k := c.Key()
	return report.Outcome{ID: k.ID(), Target: k.Target, Suite: k.Suite, Cell: k.Cell, State: report.Failed, Message: failure,
		Contested: k.Contested, Known: k.Known, Informing: k.Informing}
}

func writeYAML(b *strings.Builder, obj any) {
	data, err := yaml.Marshal(obj)
	if err != nil {
		fmt.Fprintf(b, "(cannot render: %v)\n", err)
		return
	}
	b.Write(data)
	b.WriteString("---\n")
}

// tail returns the last n lines of a file, or why it cannot.
func writeContainerStatuses(b *strings.Builder, statuses []corev1.ContainerStatus) {
	for _, cs := range statuses {
		state := "unknown"
		switch {
		case cs.State.Running != nil:
			state = "running since " + cs.State.Running.StartedAt.Format("15:04:05")
		case cs.State.Waiting != nil:
			state = fmt.Sprintf("waiting: %s %s", cs.State.Waiting.Reason, cs.State.Waiting.Message)
		case cs.State.Terminated != nil:
			t := cs.State.Terminated
			state = fmt.Sprintf("terminated: %s (exit %d) %s", t.Reason, t.ExitCode, t.Message)
		}
		fmt.Fprintf(b, "  container %s: %s, ready=%t, restarts=%d, image %s\n", cs.Name, state, cs.Ready, cs.RestartCount, cs.Image)
	}
}

// writeDriverLogs adds the last lines of every test driver pod's log, read
// through the API, so it works on any provider.
func writeDriverLogs(ctx context.Context, b *strings.Builder, env *steps.Env, section func(string)) error {
	core := env.Clients.Kube.CoreV1()
	pods, err := core.Pods(testdriver.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	lines := int64(40)
	for _, p := range pods.Items {
		section(fmt.Sprintf("test driver pod %s/%s on node %s, last %d lines", p.Namespace, p.Name, p.Spec.NodeName, lines))
		writeContainerStatuses(b, p.Status.ContainerStatuses)
		raw, err := core.Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{TailLines: &lines}).Do(ctx).Raw()
		if err != nil {
			fmt.Fprintf(b, "(cannot read its log: %v)\n", err)
			continue
		}
		b.Write(raw)
	}
	return nil
}

package steps

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/draconform/draconform/tools/cluster"
)

// kubeadm (and kind, which runs kubeadm) starts kube-scheduler as a static
// pod in kube-system with these labels; the kubelet's mirror pod lets the
// API serve its container's status and log.
const (
	schedulerPodNamespace = "kube-system"
	schedulerPodSelector  = "component=kube-scheduler"
	// schedulerLogLines bounds how much of each scheduler pod's log is read.
	schedulerLogLines int64 = 50000
)

var errNoSchedulerPod = errors.New("no pod in " + schedulerPodNamespace + " is labelled " + schedulerPodSelector + " (kubeadm and kind run kube-scheduler so; a managed control plane does not show it)")

// apiSchedulerRuns shows kube-scheduler's run through the API, for a
// provider that cannot (a cluster behind a kubeconfig). Its run is the
// containers of every kube-scheduler pod (one per control-plane node; the
// leader is the one that schedules): a new container in any of them is a
// new run.
type apiSchedulerRuns struct{ env *Env }

var _ cluster.RunInspector = apiSchedulerRuns{}

func (a apiSchedulerRuns) pods(ctx context.Context) ([]corev1.Pod, error) {
	list, err := a.env.Clients.Kube.CoreV1().Pods(schedulerPodNamespace).List(ctx, metav1.ListOptions{LabelSelector: schedulerPodSelector})
	if err != nil {
		return nil, fmt.Errorf("listing the pods of %s labelled %s: %w", schedulerPodNamespace, schedulerPodSelector, err)
	}
	if len(list.Items) == 0 {
		return nil, errNoSchedulerPod
	}
	pods := list.Items
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	return pods, nil
}

// CurrentRun implements cluster.RunInspector for kube-scheduler only.
func (a apiSchedulerRuns) CurrentRun(ctx context.Context, comp cluster.Component) (cluster.Run, error) {
	if comp != cluster.Scheduler {
		return cluster.Run{}, fmt.Errorf("the API shows only kube-scheduler's run here, not %s's", comp)
	}
	pods, err := a.pods(ctx)
	if err != nil {
		return cluster.Run{}, err
	}
	run := cluster.Run{Running: true}
	var ids, logs []string
	for i := range pods {
		p := &pods[i]
		st := schedulerContainer(p)
		if st == nil {
			return cluster.Run{}, fmt.Errorf("pod %s/%s has no container status yet", p.Namespace, p.Name)
		}
		ids = append(ids, fmt.Sprintf("%s/%s#%d", p.Name, st.ContainerID, st.RestartCount))
		if st.State.Running == nil {
			run.Running = false
		}
		log, err := a.log(ctx, p.Name, st.Name)
		if err != nil {
			return cluster.Run{}, fmt.Errorf("reading the log of %s/%s: %w", p.Namespace, p.Name, err)
		}
		logs = append(logs, log)
	}
	run.ID = strings.Join(ids, ",")
	run.Log = strings.Join(logs, "\n")
	return run, nil
}

// schedulerContainer is the status of the pod's kube-scheduler container
// (its only one, under kubeadm).
func schedulerContainer(p *corev1.Pod) *corev1.ContainerStatus {
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == "kube-scheduler" {
			return &p.Status.ContainerStatuses[i]
		}
	}
	if len(p.Status.ContainerStatuses) > 0 {
		return &p.Status.ContainerStatuses[0]
	}
	return nil
}

func (a apiSchedulerRuns) log(ctx context.Context, pod, container string) (string, error) {
	if a.env.Clients.Logs != nil {
		return a.env.Clients.Logs(ctx, schedulerPodNamespace, pod, container)
	}
	lines := schedulerLogLines
	raw, err := a.env.Clients.Kube.CoreV1().Pods(schedulerPodNamespace).GetLogs(pod, &corev1.PodLogOptions{Container: container, TailLines: &lines}).Do(ctx).Raw()
	return string(raw), err
}

package steps_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

// schedulerPod is the static pod kubeadm runs kube-scheduler in, as the
// API shows it, with its container's ID.
func schedulerPod(containerID string) string {
	return `apiVersion: v1
kind: Pod
metadata: {name: kube-scheduler-cp, namespace: kube-system, labels: {component: kube-scheduler, tier: control-plane}}
spec: {containers: [{name: kube-scheduler, image: registry.k8s.io/kube-scheduler}]}
status:
  containerStatuses:
  - {name: kube-scheduler, containerID: "containerd://` + containerID + `", restartCount: 0, ready: true, image: registry.k8s.io/kube-scheduler, imageID: "sha256:0", state: {running: {}}}
`
}

// schedulerLogOf is kube-scheduler's log with n --v=2 attempts at pod p1.
func schedulerLogOf(n int) string {
	var b strings.Builder
	b.WriteString("I1202 10:00:00.000000 1 server.go:100] \"Starting Kubernetes Scheduler\"\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `I1202 10:00:01.000000 1 schedule_one.go:1194] "Unable to schedule pod; no fit; waiting" pod="%s/p1" err="0/1 nodes are available: 1 cannot allocate all claims."`+"\n", stepstest.Namespace)
	}
	return b.String()
}

// schedulerLogs serves the scheduler pod's log through Clients.Logs.
type schedulerLogs struct {
	mu   sync.Mutex
	text string
}

func (l *schedulerLogs) set(text string) { l.mu.Lock(); l.text = text; l.mu.Unlock() }

func (l *schedulerLogs) read(_ context.Context, ns, pod, container string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ns != "kube-system" || pod != "kube-scheduler-cp" || container != "kube-scheduler" {
		return "", fmt.Errorf("log of %s/%s container %s read", ns, pod, container)
	}
	return l.text, nil
}

// On a cluster whose provider does not show kube-scheduler's run (a
// kubeconfig), expectNoHotLoop reads it through the API from the static
// pod; where that does not show the attempts either, the case does not
// apply. It never passes without having counted them.
func TestExpectNoHotLoopThroughTheAPI(t *testing.T) {
	const window = time.Second
	tests := []hotLoopCase{
		{name: "no scheduler pod", quick: true,
			skip: []string{"this cluster shows it nowhere", "no pod in kube-system is labelled component=kube-scheduler"}},
		{name: "kube-system pods forbidden", forbidden: true, quick: true,
			skip: []string{"this cluster shows it nowhere", "forbidden"}},
		{name: "kube-system logs forbidden", pod: true, noLogs: true, log: schedulerLogOf(1), quick: true,
			skip: []string{"may not read it", "never kube-system's", "forbidden"}},
		{name: "backoff", pod: true, log: schedulerLogOf(1), late: schedulerLogOf(3), measured: "2 (1 before the window)"},
		{name: "hot loop", pod: true, log: schedulerLogOf(1), late: schedulerLogOf(60), fails: []string{"tried pod p1 59 times", "hot loop"}},
		{name: "scheduler below --v=2", pod: true, log: schedulerLogOf(0), late: schedulerLogOf(0),
			skip: []string{"logged no attempt at pod p1", "--v=2"}},
		{name: "scheduler restarted", pod: true, log: schedulerLogOf(1), late: schedulerLogOf(2), restarted: true,
			fails: []string{"kube-scheduler did not keep its run", "containerd://aaa", "containerd://bbb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := tt.fake(t, window)
			start := time.Now()
			err := run(t, f, &steps.ExpectNoHotLoop{Spec: &spec.ExpectNoHotLoop{Pod: "p1", Over: spec.Duration(window), MaxAttempts: 10}})
			if tt.quick && time.Since(start) > window {
				t.Errorf("took %s: what cannot be measured is known before the window", time.Since(start))
			}
			measured := strings.Join(f.Env.Measurements(), "\n")
			if tt.skip != nil {
				na, ok := steps.AsNotApplicable(err)
				if !ok {
					t.Fatalf("the case must not apply (%q), but the step returned %v (measured %q)", tt.skip, err, measured)
				}
				for _, s := range tt.skip {
					if !strings.Contains(na.Reason, s) {
						t.Errorf("the reason does not say %q: %s", s, na.Reason)
					}
				}
				return
			}
			check(t, err, tt.fails)
			if !strings.Contains(measured, tt.measured) {
				t.Errorf("measured %q, want %q", measured, tt.measured)
			}
		})
	}
}

// hotLoopCase is one row of TestExpectNoHotLoopThroughTheAPI.
type hotLoopCase struct {
	name      string
	pod       bool // a kube-scheduler static pod exists
	forbidden bool // listing kube-system pods is refused
	noLogs    bool // reading kube-system pods' logs is refused (draconform rbac's role)
	log, late string
	restarted bool // the container is replaced during the window
	fails     []string
	skip      []string // the case does not apply, for these reasons
	measured  string
	quick     bool // decided before the window
}

// fake is the cluster the row describes: an unschedulable pod, and the
// scheduler's pod and logs as they change a third into the window.
func (tt hotLoopCase) fake(t *testing.T, window time.Duration) *stepstest.Fake {
	f := stepstest.New(t)
	l := &schedulerLogs{text: tt.log}
	f.Env.Clients.Logs = l.read
	if tt.noLogs {
		f.Env.Clients.Logs = func(_ context.Context, ns, pod, _ string) (string, error) {
			return "", apierrors.NewForbidden(schema.GroupResource{Resource: "pods/log"}, pod, fmt.Errorf("user cannot get pods/log in %s", ns))
		}
	}
	f.SeedYAML("p1", podYAML("p1", "", unschedulableStatus))
	if tt.pod {
		sp := f.AddYAML(schedulerPod("aaa"))
		f.Later(window/3, func() {
			l.set(tt.late)
			if tt.restarted {
				f.Modify(sp, func(u *unstructured.Unstructured) {
					st, _, _ := unstructured.NestedSlice(u.Object, "status", "containerStatuses")
					st[0].(map[string]any)["containerID"] = "containerd://bbb"
					_ = unstructured.SetNestedSlice(u.Object, st, "status", "containerStatuses")
				})
			}
		})
	}
	if tt.forbidden {
		f.Kube.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.GetNamespace() != "kube-system" {
				return false, nil, nil
			}
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", fmt.Errorf("user cannot list pods in kube-system"))
		})
	}
	return f
}

package exampledriver

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/testdriver"
)

// Published is what the driver shows once it runs.
type Published struct {
	// Registration is the kubelet's log line saying it connected to the
	// driver's plugin after registering it; empty where the node's
	// kubelet log is not known.
	Registration string
	Slices       []resourcev1.ResourceSlice
}

// Wait waits for the plugin's DaemonSet to be ready on the node, for the
// kubelet to have registered the plugin, and for the driver to have
// published its ResourceSlices of the node.
func (inst *Installed) Wait(ctx context.Context, timeout time.Duration) (*Published, error) {
	dss := inst.daemonSets()
	if len(dss) != 1 {
		return nil, fmt.Errorf("the install created %d DaemonSets; the example driver's chart has one", len(dss))
	}
	var ds appsv1.DaemonSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(dss[0].Object, &ds); err != nil {
		return nil, fmt.Errorf("reading DaemonSet %s: %w", dss[0].GetName(), err)
	}
	node := inst.plan.Node
	pub := &Published{}
	last := "nothing observed yet"
	err := cluster.Poll(ctx, timeout, time.Second, func(ctx context.Context) (bool, error) {
		cur, err := inst.c.Core.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		pods := inst.notePods(ctx, ds.Namespace)
		if ok, why := testdriver.DaemonSetReady(cur); !ok {
			last = why + podTrouble(pods)
			return false, nil
		}
		if node.KubeletLog != "" && pub.Registration == "" {
			pub.Registration = registrationLine(node.KubeletLog, inst.kubeletLogFrom, Driver)
			if pub.Registration == "" {
				last = "the DaemonSet is ready but the kubelet's log " + node.KubeletLog + " has not said it connected to " + Driver + "'s plugin"
				return false, nil
			}
		}
		list, err := inst.c.Core.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: sliceSelector(node.Name)})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if len(list.Items) == 0 {
			last = "no ResourceSlice of " + Driver + " for node " + node.Name + " yet"
			return false, nil
		}
		pub.Slices = list.Items
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the example driver on node %s: %w; last: %s", node.Name, err, last)
	}
	return pub, nil
}

// notePods records the plugin's pods, whose folders Remove waits for the
// kubelet to remove.
func (inst *Installed) notePods(ctx context.Context, ns string) []corev1.Pod {
	pods, err := inst.c.Core.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	for _, p := range pods.Items {
		inst.pods[p.UID] = p.Name
	}
	return pods.Items
}

// podTrouble says why a plugin container is not running (with its
// termination message where it wrote one; its log is in the kubelet's pod
// logs), for a wait that ends before the driver runs.
func podTrouble(pods []corev1.Pod) string {
	var out []string
	for _, p := range pods {
		for _, c := range p.Status.ContainerStatuses {
			if c.Ready {
				continue
			}
			why := ""
			if w := c.State.Waiting; w != nil {
				why = w.Reason
			}
			if t := c.LastTerminationState.Terminated; t != nil {
				why += fmt.Sprintf(" after exit %d (%s, %d restarts): %s", t.ExitCode, t.Reason, c.RestartCount, strings.TrimSpace(t.Message))
			}
			if why != "" {
				out = append(out, fmt.Sprintf("pod %s container %s: %s", p.Name, c.Name, strings.TrimSpace(why)))
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, "; ")
}

// registrationLine is the first line of the kubelet's log after offset
// from in which the kubelet's DRA plugin manager says it connected to
// driver's plugin (pkg/kubelet/cm/dra/plugin, logged at -v=2 once the
// plugin watcher has registered the plugin), or "".
func registrationLine(logPath string, from int64, driver string) string {
	f, err := os.Open(logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return ""
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"Connection changed"`) && strings.Contains(line, `driverName="`+driver+`"`) && strings.Contains(line, "connected=true") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// Describe says what the driver published: per slice, each device with
// whether it may be allocated several times and its capacities.
func (p *Published) Describe() []string {
	var out []string
	for _, s := range p.Slices {
		out = append(out, fmt.Sprintf("ResourceSlice %s: driver %s, node %s, pool %s, %d devices", s.Name, s.Spec.Driver, deref(s.Spec.NodeName), s.Spec.Pool.Name, len(s.Spec.Devices)))
		for _, d := range s.Spec.Devices {
			multi := d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations
			out = append(out, fmt.Sprintf("  %s: allowMultipleAllocations %t, capacity %s", d.Name, multi, describeCapacity(d.Capacity)))
		}
	}
	return out
}

func describeCapacity(c map[resourcev1.QualifiedName]resourcev1.DeviceCapacity) string {
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, string(n))
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		dc := c[resourcev1.QualifiedName(n)]
		s := n + " " + dc.Value.String()
		if pol := dc.RequestPolicy; pol != nil {
			var rule []string
			if pol.Default != nil {
				rule = append(rule, "default "+pol.Default.String())
			}
			if r := pol.ValidRange; r != nil {
				rng := "range " + r.Min.String() + ".."
				if r.Max != nil {
					rng += r.Max.String()
				}
				if r.Step != nil {
					rng += " step " + r.Step.String()
				}
				rule = append(rule, rng)
			}
			if len(pol.ValidValues) > 0 {
				var vs []string
				for _, v := range pol.ValidValues {
					vs = append(vs, v.String())
				}
				rule = append(rule, "values "+strings.Join(vs, ","))
			}
			s += " (" + strings.Join(rule, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

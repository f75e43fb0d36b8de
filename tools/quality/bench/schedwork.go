package bench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/draconform/draconform/tools/cluster"
)

// CostOptions size the scheduler-cost workload.
type CostOptions struct {
	// Pods is how many pods each side gets; Batch how many of one side are
	// created together before the other side's turn.
	Pods, Batch int
	// Nodes fake nodes carry DevicesPerNode shareable devices each.
	Nodes, DevicesPerNode int
	Log                   io.Writer
}

const (
	costDriver    = "cost.bench.draconform.dev"
	costNamespace = "draconform-bench-cost"
	costWith      = "cost.bench.draconform.dev/with-field"
	costWithout   = "cost.bench.draconform.dev/without-field"
	// costShares is each device's capacity: enough that the pods with the
	// field (1 share each) never fill one device, and the pods without it
	// (a whole device each) never run out of devices.
	costShares = 1000
	bindWithin = 2 * time.Minute
	sliSettle  = 10 * time.Second
	pollEvery  = 200 * time.Millisecond
)

var (
	classGVR = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"}
	sliceGVR = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}
)

// MeasureSchedCost runs the workload on c, a fresh cluster whose scheduler
// and API server run with the KEP's gate: two classes that differ only in
// the field, fake nodes with shareable devices both select, and pods of
// either class in alternating batches. Each side's figures are the growth
// of the metrics over its own batches.
func MeasureSchedCost(ctx context.Context, c cluster.Cluster, o CostOptions) (With, Without Side, err error) {
	metrics, ok := cluster.SchedulerMetricsOf(c)
	if !ok {
		return Side{}, Side{}, fmt.Errorf("cluster %s cannot read kube-scheduler's metrics", c.Name())
	}
	cfg := c.RESTConfig()
	cfg.QPS, cfg.Burst = 100, 200
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Side{}, Side{}, fmt.Errorf("client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Side{}, Side{}, fmt.Errorf("client: %w", err)
	}
	if err := costObjects(ctx, kube, dyn, o); err != nil {
		return Side{}, Side{}, err
	}
	read := countsReader(ctx, metrics, kube)
	sides := []struct {
		resource string
		side     *Side
	}{{costWith, &With}, {costWithout, &Without}}
	for round, made := 0, 0; made < o.Pods; round++ {
		n := min(o.Batch, o.Pods-made)
		// Neither side always follows the other: whatever the previous
		// batch leaves behind (a claim's status write, a cache update)
		// falls on both alike.
		for k := range sides {
			s := sides[(round+k)%2]
			before, err := read()
			if err != nil {
				return Side{}, Side{}, err
			}
			if err := costBatch(ctx, kube, s.resource, made, n); err != nil {
				return Side{}, Side{}, err
			}
			after, err := settled(ctx, read, before, n)
			if err != nil {
				return Side{}, Side{}, err
			}
			s.side.Add(n, after.Since(before))
		}
		made += n
		if o.Log != nil {
			fmt.Fprintf(o.Log, "bench: scheduler cost: %d of %d pods a side scheduled\n", made, o.Pods)
		}
	}
	// What was compared must be what the sides claim to be: the claims of
	// the pods with the field carry its capacity request, the others none.
	if With.ClaimsWithCapacity, Without.ClaimsWithCapacity, err = claimsWithCapacity(ctx, dyn); err != nil {
		return Side{}, Side{}, err
	}
	return With, Without, nil
}

var claimGVR = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}

// claimsWithCapacity counts, by the side of the pod that owns it, the
// ResourceClaims with a capacity request in any of their requests.
func claimsWithCapacity(ctx context.Context, dyn dynamic.Interface) (with, without int, err error) {
	list, err := dyn.Resource(claimGVR).Namespace(costNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, fmt.Errorf("listing ResourceClaims: %w", err)
	}
	for _, cl := range list.Items {
		owners := cl.GetOwnerReferences()
		if len(owners) == 0 || !hasCapacityRequest(cl) {
			continue
		}
		switch {
		case strings.HasPrefix(owners[0].Name, "with-"):
			with++
		case strings.HasPrefix(owners[0].Name, "without-"):
			without++
		}
	}
	return with, without, nil
}

func hasCapacityRequest(cl unstructured.Unstructured) bool {
	reqs, _, _ := unstructured.NestedSlice(cl.Object, "spec", "devices", "requests")
	for _, r := range reqs {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		if caps, ok, _ := unstructured.NestedMap(m, "exactly", "capacity", "requests"); ok && len(caps) > 0 {
			return true
		}
	}
	return false
}

// countsReader reads the counts of kube-scheduler's and kube-apiserver's
// metrics the cost compares.
func countsReader(ctx context.Context, metrics cluster.SchedulerMetrics, kube kubernetes.Interface) func() (SchedCounts, error) {
	return func() (SchedCounts, error) {
		sched, err := metrics.SchedulerMetrics(ctx)
		if err != nil {
			return SchedCounts{}, err
		}
		api, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			return SchedCounts{}, fmt.Errorf("reading kube-apiserver's metrics: %w", err)
		}
		return ReadSchedCounts(sched, string(api))
	}
}

// settled reads the metrics until the SLI has counted the batch's n pods:
// the scheduler records it after the binding the caller saw, a moment
// later, and a read before that would give the batch's time to the next.
func settled(ctx context.Context, read func() (SchedCounts, error), before SchedCounts, n int) (SchedCounts, error) {
	deadline := time.Now().Add(sliSettle)
	for {
		after, err := read()
		if err != nil {
			return SchedCounts{}, err
		}
		if after.SLI.Count-before.SLI.Count >= float64(n) || time.Now().After(deadline) {
			return after, nil
		}
		select {
		case <-ctx.Done():
			return SchedCounts{}, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// costObjects creates what both sides share: the namespace, the two
// classes, and the fake nodes with their devices.
func costObjects(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, o CostOptions) error {
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: costNamespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", costNamespace, err)
	}
	for _, cl := range []*unstructured.Unstructured{costClass("with-field", costWith, true), costClass("without-field", costWithout, false)} {
		if _, err := dyn.Resource(classGVR).Create(ctx, cl, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating DeviceClass %s: %w", cl.GetName(), err)
		}
	}
	// The DeviceClass as stored must still carry the field: an API server
	// that dropped it would make both sides the same and the figures a lie.
	got, err := dyn.Resource(classGVR).Get(ctx, "cost-with-field", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading DeviceClass cost-with-field: %w", err)
	}
	if _, ok, _ := unstructured.NestedMap(got.Object, "spec", "extendedResourceCapacityRequests"); !ok {
		return fmt.Errorf("the API server dropped extendedResourceCapacityRequests from DeviceClass cost-with-field: is its gate on?")
	}
	for i := range o.Nodes {
		name := fmt.Sprintf("cost-n%d", i)
		if err := costNode(ctx, kube, name); err != nil {
			return err
		}
		if _, err := dyn.Resource(sliceGVR).Create(ctx, costSlice(name, o.DevicesPerNode), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating the ResourceSlice of %s: %w", name, err)
		}
	}
	return nil
}

func costClass(name, resourceName string, field bool) *unstructured.Unstructured {
	spec := map[string]any{
		"selectors":            []any{map[string]any{"cel": map[string]any{"expression": fmt.Sprintf("device.driver == %q", costDriver)}}},
		"extendedResourceName": resourceName,
	}
	if field {
		spec["extendedResourceCapacityRequests"] = map[string]any{"requests": map[string]any{"shares": "1"}}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
		"metadata": map[string]any{"name": "cost-" + name},
		"spec":     spec,
	}}
}

func costSlice(node string, devices int) *unstructured.Unstructured {
	var devs []any
	for i := range devices {
		devs = append(devs, map[string]any{
			"name":                     fmt.Sprintf("dev-%d", i),
			"allowMultipleAllocations": true,
			"capacity":                 map[string]any{"shares": map[string]any{"value": fmt.Sprint(costShares)}},
		})
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
		"metadata": map[string]any{"name": node + "-devices"},
		"spec": map[string]any{
			"driver":   costDriver,
			"nodeName": node,
			"pool":     map[string]any{"name": node, "generation": int64(1), "resourceSliceCount": int64(1)},
			"devices":  devs,
		},
	}}
}

// costNode creates a Node with no kubelet behind it: its status is
// written by hand, as steps do for the suite's fake nodes. The pods
// tolerate every taint, so the not-ready taint admission adds stays.
func costNode(ctx context.Context, kube kubernetes.Interface, name string) error {
	nodes := kube.CoreV1().Nodes()
	if _, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating node %s: %w", name, err)
	}
	room := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("256Gi"), corev1.ResourcePods: resource.MustParse("500")}
	// Controllers annotate a new Node at once, hence the retry.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Status = corev1.NodeStatus{Capacity: room, Allocatable: room, Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "DraconformBench", Message: "created by draconform bench; no kubelet runs behind it",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
		}}}
		_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("writing the status of node %s: %w", name, err)
	}
	return nil
}

// costBatch creates n pods asking 1 of resourceName and waits until every
// one is bound.
func costBatch(ctx context.Context, kube kubernetes.Interface, resourceName string, from, n int) error {
	side := "with"
	if resourceName == costWithout {
		side = "without"
	}
	pods := kube.CoreV1().Pods(costNamespace)
	names := map[string]bool{}
	for i := range n {
		name := fmt.Sprintf("%s-%03d", side, from+i)
		one := corev1.ResourceList{corev1.ResourceName(resourceName): resource.MustParse("1")}
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"side": side}},
			Spec: corev1.PodSpec{
				Containers:  []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{Requests: one, Limits: one}}},
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			},
		}
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pod %s: %w", name, err)
		}
		names[name] = true
	}
	deadline := time.Now().Add(bindWithin)
	for {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "side=" + side})
		if err != nil {
			return fmt.Errorf("listing pods: %w", err)
		}
		waiting, why := 0, ""
		for _, p := range list.Items {
			if !names[p.Name] || p.Spec.NodeName != "" {
				continue
			}
			waiting++
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
					why = fmt.Sprintf("pod %s: %s", p.Name, c.Message)
				}
			}
		}
		if waiting == 0 && len(list.Items) >= from+n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d pods of %s not bound within %s (%s)", waiting, n, resourceName, bindWithin, why)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

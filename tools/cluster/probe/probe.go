// Package probe reads what a cluster does, rather than what it claims: the
// KEP-6406 field's state by dry-run, the served versions, the test driver's
// nodes (Read), what a cell's gates promise of them (Implies), and the
// facts a report keeps (ReadFacts). It holds the KEP's semantics, so that
// the provider contract in tools/cluster holds none.
package probe

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/drivers/envcontract"
)

// Field states of DeviceClassSpec.extendedResourceCapacityRequests, as a
// server-side dry-run create reveals them.
const (
	FieldUnknown = "unknown" // the API server has no such field (no KEP-6406)
	FieldDropped = "dropped" // it knows the field but drops it (gate off)
	FieldKept    = "kept"    // it stores the field (gate on)
)

// Capabilities is what a cluster can do, as far as the suite cares.
type Capabilities struct {
	CapacityRequestsField string
	ConsumableCapacity    string // enabled or disabled
	// DeviceTaints and PartitionableDevices say whether the API server
	// keeps the fields of DRADeviceTaints (a device's taints) and
	// DRAPartitionableDevices (shared counters): gates KEP-6406 does not
	// depend on, which cases of devices that use them need (enabled or
	// disabled; "" when not probed).
	DeviceTaints         string
	PartitionableDevices string
	Restart              bool
	// TestDriverNodes are the Ready nodes where the draconform test driver
	// (drivers/) publishes devices: there pods really start, with the
	// allocation in their environment. None on the embedded control plane,
	// which has no kubelet.
	TestDriverNodes []string
	// Served are the group versions the API server serves
	// (resource.k8s.io/v1beta2, say); nil when unknown.
	Served []string
}

// Serves says whether the API server serves a group version; when the
// probe could not tell, it assumes so and lets the step find out.
func (c Capabilities) Serves(groupVersion string) bool {
	return c.Served == nil || slices.Contains(c.Served, groupVersion)
}

// TestDriverName is the driver name of drivers/cmd/draconform-driver.
const TestDriverName = envcontract.DriverName

func (c Capabilities) String() string {
	driver := "none"
	if len(c.TestDriverNodes) > 0 {
		driver = strings.Join(c.TestDriverNodes, ",")
	}
	resource := "unknown"
	if c.Served != nil {
		var vs []string
		for _, gv := range c.Served {
			if v, ok := strings.CutPrefix(gv, "resource.k8s.io/"); ok {
				vs = append(vs, v)
			}
		}
		resource = strings.Join(vs, ",")
	}
	return fmt.Sprintf("DeviceClassSpec.extendedResourceCapacityRequests: %s; DRAConsumableCapacity fields: %s; DRADeviceTaints fields: %s; DRAPartitionableDevices fields: %s; restart components: %t; nodes with the test driver: %s; resource.k8s.io versions: %s",
		c.CapacityRequestsField, c.ConsumableCapacity, orUnknown(c.DeviceTaints), orUnknown(c.PartitionableDevices), c.Restart, driver, resource)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Describe says in words what the field state means, for the run's header.
func (c Capabilities) Describe() string {
	switch c.CapacityRequestsField {
	case FieldUnknown:
		return "the API server does not know DeviceClassSpec.extendedResourceCapacityRequests: KEP-6406 is absent from this cluster"
	case FieldDropped:
		return "the API server knows extendedResourceCapacityRequests but drops it: DRAExtendedResourceCapacity is off"
	case FieldKept:
		return "the API server stores extendedResourceCapacityRequests: KEP-6406 is enabled"
	}
	return "the state of KEP-6406 is unknown"
}

var (
	deviceClasses  = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"}
	resourceSlices = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}
	nodesGVR       = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
)

// probePrefix names the probe's dry-run objects as a case's are named
// (dc-<run>-<case>), run "probe", case "0", and probeMeta labels them so
// (steps.RunLabel, steps.CaseLabel): a cluster that confines the runner to
// its own objects and their names (draconform rbac's admission policy)
// then lets the probe through.
const probePrefix = "dc-probe-0"

func probeMeta() map[string]any {
	return map[string]any{"name": probePrefix + "-probe", "labels": map[string]any{"draconform.dev/run": "probe", "draconform.dev/case": "0"}}
}

// Read asks the API server, with dry-run creates that store nothing, what it
// does with the fields the suite depends on. Probing behaviour rather than
// reading versions or gates works on any cluster, including one whose
// components the suite cannot see.
func Read(ctx context.Context, cfg *rest.Config, canRestart bool) (Capabilities, error) {
	caps := Capabilities{Restart: canRestart}
	warnings := &warningSink{}
	c := rest.CopyConfig(cfg)
	c.WarningHandler = warnings
	dyn, err := dynamic.NewForConfig(c)
	if err != nil {
		return caps, fmt.Errorf("probe client: %w", err)
	}
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Warn"}
	class := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
		"metadata": probeMeta(),
		"spec": map[string]any{
			"extendedResourceName":             probePrefix + ".draconform.test/probe",
			"extendedResourceCapacityRequests": map[string]any{"requests": map[string]any{"shares": "1"}},
		},
	}}
	got, err := dyn.Resource(deviceClasses).Create(ctx, class, dry)
	if err != nil {
		return caps, fmt.Errorf("probing DeviceClass fields (dry-run create): %w", err)
	}
	_, kept, _ := unstructured.NestedMap(got.Object, "spec", "extendedResourceCapacityRequests")
	switch {
	case kept:
		caps.CapacityRequestsField = FieldKept
	case warnings.contains("unknown field"):
		caps.CapacityRequestsField = FieldUnknown
	default:
		caps.CapacityRequestsField = FieldDropped
	}
	if caps.ConsumableCapacity, caps.DeviceTaints, err = deviceFields(ctx, dyn, dry); err != nil {
		return caps, err
	}
	if caps.PartitionableDevices, err = partitionable(ctx, dyn, dry); err != nil {
		return caps, err
	}
	if caps.TestDriverNodes, err = testDriverNodes(ctx, dyn); err != nil {
		return caps, err
	}
	if caps.Served, err = servedVersions(c); err != nil {
		return caps, err
	}
	return caps, nil
}

// deviceFields says whether the API server keeps a device's
// allowMultipleAllocations (consumable capacity) and taints, by a dry-run
// ResourceSlice: "enabled" or "disabled" each.
func deviceFields(ctx context.Context, dyn dynamic.Interface, dry metav1.CreateOptions) (consumable, taints string, err error) {
	slice := probeSlice("devices", []any{map[string]any{
		"name": "d", "allowMultipleAllocations": true,
		"capacity": map[string]any{"shares": map[string]any{"value": "1"}},
		"taints":   []any{map[string]any{"key": "draconform.test/probe", "effect": "NoSchedule"}},
	}})
	got, err := dyn.Resource(resourceSlices).Create(ctx, slice, dry)
	if err != nil {
		return "", "", fmt.Errorf("probing ResourceSlice fields (dry-run create): %w", err)
	}
	devices, _, _ := unstructured.NestedSlice(got.Object, "spec", "devices")
	consumable, taints = "disabled", "disabled"
	if len(devices) == 1 {
		if m, ok := devices[0].(map[string]any); ok && m["allowMultipleAllocations"] == true {
			consumable = "enabled"
		}
		if m, ok := devices[0].(map[string]any); ok && m["taints"] != nil {
			taints = "enabled"
		}
	}
	return consumable, taints, nil
}

// probeSlice is a dry-run ResourceSlice of the probe's own driver for every
// node, whose spec holds list under key (devices, sharedCounters).
func probeSlice(key string, list []any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
		"metadata": probeMeta(),
		"spec": map[string]any{
			"driver": probePrefix + ".draconform.test", "allNodes": true,
			"pool": map[string]any{"name": "probe", "generation": int64(1), "resourceSliceCount": int64(1)},
			key:    list,
		},
	}}
}

// partitionable says whether the API server keeps a slice's shared
// counters (DRAPartitionableDevices): with the gate off it drops them.
func partitionable(ctx context.Context, dyn dynamic.Interface, dry metav1.CreateOptions) (string, error) {
	slice := probeSlice("sharedCounters", []any{map[string]any{"name": "c", "counters": map[string]any{"memory": map[string]any{"value": "1"}}}})
	got, err := dyn.Resource(resourceSlices).Create(ctx, slice, dry)
	if err != nil {
		return "", fmt.Errorf("probing ResourceSlice shared counters (dry-run create): %w", err)
	}
	if counters, _, _ := unstructured.NestedSlice(got.Object, "spec", "sharedCounters"); len(counters) > 0 {
		return "enabled", nil
	}
	return "disabled", nil
}

// servedVersions lists the group versions of the API server's discovery.
// Cases that read or write through an older version of resource.k8s.io need
// it served, which is off by default for its beta versions.
func servedVersions(cfg *rest.Config) ([]string, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		return nil, fmt.Errorf("listing the API server's group versions: %w", err)
	}
	served := []string{}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			served = append(served, v.GroupVersion)
		}
	}
	sort.Strings(served)
	return served, nil
}

// testDriverNodes lists the Ready nodes with a ResourceSlice of the test
// driver.
func testDriverNodes(ctx context.Context, dyn dynamic.Interface) ([]string, error) {
	return driverNodes(ctx, dyn, TestDriverName)
}

// driverNodes lists the Ready nodes with a ResourceSlice of driver. A
// slice alone is not enough: the suite's own Node objects have no kubelet,
// and a stale slice may outlive its node.
func driverNodes(ctx context.Context, dyn dynamic.Interface, driver string) ([]string, error) {
	slices, err := dyn.Resource(resourceSlices).List(ctx, metav1.ListOptions{FieldSelector: "spec.driver=" + driver})
	if err != nil {
		return nil, fmt.Errorf("listing the ResourceSlices of %s: %w", driver, err)
	}
	seen := map[string]bool{}
	var nodes []string
	for _, s := range slices.Items {
		name, _, _ := unstructured.NestedString(s.Object, "spec", "nodeName")
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		node, err := dyn.Resource(nodesGVR).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			continue // gone: its slice is stale
		}
		if nodeReady(node) {
			nodes = append(nodes, name)
		}
	}
	sort.Strings(nodes)
	return nodes, nil
}

func nodeReady(node *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(node.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" && m["status"] == "True" {
			return true
		}
	}
	return false
}

type warningSink struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningSink) HandleWarningHeader(code int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

func (w *warningSink) contains(s string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range w.msgs {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

package cluster

import (
	"context"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
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
	Restart               bool
}

func (c Capabilities) String() string {
	return fmt.Sprintf("DeviceClassSpec.extendedResourceCapacityRequests: %s; DRAConsumableCapacity fields: %s; restart components: %t",
		c.CapacityRequestsField, c.ConsumableCapacity, c.Restart)
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
)

// Probe asks the API server, with dry-run creates that store nothing, what it
// does with the fields the suite depends on. Probing behaviour rather than
// reading versions or gates works on any cluster, including one whose
// components the suite cannot see.
func Probe(ctx context.Context, cfg *rest.Config, canRestart bool) (Capabilities, error) {
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
		"metadata": map[string]any{"name": "draconform-probe"},
		"spec": map[string]any{
			"extendedResourceName":             "probe.draconform.test/probe",
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
	slice := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
		"metadata": map[string]any{"name": "draconform-probe"},
		"spec": map[string]any{
			"driver": "probe.draconform.test", "allNodes": true,
			"pool": map[string]any{"name": "probe", "generation": int64(1), "resourceSliceCount": int64(1)},
			"devices": []any{map[string]any{
				"name": "d", "allowMultipleAllocations": true,
				"capacity": map[string]any{"shares": map[string]any{"value": "1"}},
			}},
		},
	}}
	got, err = dyn.Resource(resourceSlices).Create(ctx, slice, dry)
	if err != nil {
		return caps, fmt.Errorf("probing ResourceSlice fields (dry-run create): %w", err)
	}
	devices, _, _ := unstructured.NestedSlice(got.Object, "spec", "devices")
	caps.ConsumableCapacity = "disabled"
	if len(devices) == 1 {
		if m, ok := devices[0].(map[string]any); ok && m["allowMultipleAllocations"] == true {
			caps.ConsumableCapacity = "enabled"
		}
	}
	return caps, nil
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

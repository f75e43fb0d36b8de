package driver

import (
	"context"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/draconform/draconform/drivers/config"
)

func TestPublishesConfiguredDevices(t *testing.T) {
	h := startHarness(t, configWithExtraDevice())

	slice := waitForSlice(t, h)
	checkSliceOfThisNode(t, slice)

	devices := slice.Spec.Devices
	if len(devices) != 3 {
		t.Fatalf("got %d devices, want 3: %+v", len(devices), devices)
	}
	checkSharedDevice(t, devices[0])
	checkWholeDevice(t, devices[1])
	checkExtraDevice(t, devices[2])
}

// configWithExtraDevice is the default configuration plus a device with an
// attribute of each type and a capacity with validValues.
func configWithExtraDevice() *config.Config {
	cfg := config.Default()
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	cfg.Devices = append(cfg.Devices, config.Device{
		Name: "extra-0",
		Attributes: map[string]config.Attribute{
			"model":                   config.StringAttribute("x100"),
			"cores":                   config.IntAttribute(8),
			"example.com/accelerated": config.BoolAttribute(true),
		},
		AllowMultipleAllocations: true,
		Capacity: map[string]config.Capacity{
			"memory": {Value: q("8Gi"), RequestPolicy: &config.RequestPolicy{
				Default: q("1Gi"), ValidValues: []resource.Quantity{*q("1Gi"), *q("2Gi"), *q("4Gi")},
			}},
		},
	})
	return cfg
}

func checkSliceOfThisNode(t *testing.T, slice resourceapi.ResourceSlice) {
	t.Helper()
	if slice.Spec.Driver != DriverName {
		t.Errorf("driver = %q, want %q", slice.Spec.Driver, DriverName)
	}
	if slice.Spec.NodeName == nil || *slice.Spec.NodeName != testNode {
		t.Errorf("nodeName = %v, want %q", slice.Spec.NodeName, testNode)
	}
	if slice.Spec.Pool.Name != testNode || slice.Spec.Pool.ResourceSliceCount != 1 {
		t.Errorf("pool = %+v, want name %q with one slice", slice.Spec.Pool, testNode)
	}
	if refs := slice.OwnerReferences; len(refs) != 1 || refs[0].Kind != "Node" || refs[0].Name != testNode || refs[0].UID != "node-a-uid" {
		t.Errorf("owner references = %+v, want the node", refs)
	}
}

func checkSharedDevice(t *testing.T, shared resourceapi.Device) {
	t.Helper()
	checkName(t, shared, "shared-0")
	checkAllowMultiple(t, shared, true)
	if len(shared.Capacity) != 2 || len(shared.Attributes) != 0 {
		t.Errorf("shared-0: capacity %v, attributes %v; want shares and bandwidth only", shared.Capacity, shared.Attributes)
	}
	shares := shared.Capacity["shares"]
	checkQuantity(t, "shared-0 shares value", &shares.Value, "4")
	if p := shares.RequestPolicy; p == nil || p.ValidRange == nil || len(p.ValidValues) != 0 {
		t.Errorf("shared-0 shares requestPolicy = %+v, want default and validRange", p)
	} else {
		checkQuantity(t, "shared-0 shares default", p.Default, "1")
		checkQuantity(t, "shared-0 shares min", p.ValidRange.Min, "1")
		checkQuantity(t, "shared-0 shares max", p.ValidRange.Max, "4")
		checkQuantity(t, "shared-0 shares step", p.ValidRange.Step, "1")
	}
	bandwidth := shared.Capacity["bandwidth"]
	checkQuantity(t, "shared-0 bandwidth value", &bandwidth.Value, "10Gi")
	if p := bandwidth.RequestPolicy; p == nil || p.ValidRange != nil || len(p.ValidValues) != 0 {
		t.Errorf("shared-0 bandwidth requestPolicy = %+v, want a default only", p)
	} else {
		checkQuantity(t, "shared-0 bandwidth default", p.Default, "1Gi")
	}
}

func checkWholeDevice(t *testing.T, whole resourceapi.Device) {
	t.Helper()
	checkName(t, whole, "whole-0")
	checkAllowMultiple(t, whole, false)
	if len(whole.Capacity) != 1 || len(whole.Attributes) != 0 {
		t.Errorf("whole-0: capacity %v, attributes %v; want shares only", whole.Capacity, whole.Attributes)
	}
	wholeShares := whole.Capacity["shares"]
	checkQuantity(t, "whole-0 shares value", &wholeShares.Value, "4")
	if wholeShares.RequestPolicy != nil {
		t.Errorf("whole-0 shares requestPolicy = %+v, want none", wholeShares.RequestPolicy)
	}
}

func checkExtraDevice(t *testing.T, extra resourceapi.Device) {
	t.Helper()
	checkName(t, extra, "extra-0")
	checkAllowMultiple(t, extra, true)
	if a := extra.Attributes["model"]; a.StringValue == nil || *a.StringValue != "x100" || a.IntValue != nil || a.BoolValue != nil {
		t.Errorf("extra-0 model = %+v, want string x100", a)
	}
	if a := extra.Attributes["cores"]; a.IntValue == nil || *a.IntValue != 8 || a.StringValue != nil || a.BoolValue != nil {
		t.Errorf("extra-0 cores = %+v, want int 8", a)
	}
	if a := extra.Attributes["example.com/accelerated"]; a.BoolValue == nil || !*a.BoolValue || a.StringValue != nil || a.IntValue != nil {
		t.Errorf("extra-0 example.com/accelerated = %+v, want bool true", a)
	}
	memory := extra.Capacity["memory"]
	checkQuantity(t, "extra-0 memory value", &memory.Value, "8Gi")
	if p := memory.RequestPolicy; p == nil || p.ValidRange != nil || len(p.ValidValues) != 3 {
		t.Errorf("extra-0 memory requestPolicy = %+v, want default and three validValues", p)
	} else {
		checkQuantity(t, "extra-0 memory default", p.Default, "1Gi")
		for i, want := range []string{"1Gi", "2Gi", "4Gi"} {
			checkQuantity(t, "extra-0 memory validValues", &p.ValidValues[i], want)
		}
	}
}

// waitForSlice polls until the slice controller has created the node's
// slice; it writes asynchronously after Start.
func waitForSlice(t *testing.T, h *harness) resourceapi.ResourceSlice {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		slices, err := h.kube.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list slices: %v", err)
		}
		switch len(slices.Items) {
		case 0:
		case 1:
			return slices.Items[0]
		default:
			t.Fatalf("want one slice, got %d: %+v", len(slices.Items), slices.Items)
		}
		select {
		case <-ctx.Done():
			t.Fatal("no ResourceSlice was published within 30s")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func checkName(t *testing.T, d resourceapi.Device, want string) {
	t.Helper()
	if d.Name != want {
		t.Errorf("device name = %q, want %q", d.Name, want)
	}
}

func checkAllowMultiple(t *testing.T, d resourceapi.Device, want bool) {
	t.Helper()
	switch {
	case want && (d.AllowMultipleAllocations == nil || !*d.AllowMultipleAllocations):
		t.Errorf("%s: allowMultipleAllocations = %v, want true", d.Name, d.AllowMultipleAllocations)
	case !want && d.AllowMultipleAllocations != nil:
		t.Errorf("%s: allowMultipleAllocations = %v, want unset", d.Name, *d.AllowMultipleAllocations)
	}
}

func checkQuantity(t *testing.T, what string, got *resource.Quantity, want string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s is unset, want %s", what, want)
		return
	}
	if got.Cmp(resource.MustParse(want)) != 0 {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

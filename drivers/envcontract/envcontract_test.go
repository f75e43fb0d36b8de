package envcontract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

func TestCapacityEnvName(t *testing.T) {
	for name, want := range map[string]string{
		"shares":             "SHARES",
		"bandwidth":          "BANDWIDTH",
		"memBW2":             "MEMBW2",
		"example.com/mem-bw": "EXAMPLE_COM_MEM_BW",
		"a_b":                "A_B",
	} {
		if got := CapacityEnvName(name); got != want {
			t.Errorf("CapacityEnvName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestResultEnv(t *testing.T) {
	share := types.UID("6f1c")
	got, err := ResultEnv(2, resourceapi.DeviceRequestAllocationResult{
		Request: "req/sub", Driver: "d", Pool: "node-a", Device: "shared-0", ShareID: &share,
		ConsumedCapacity: map[resourceapi.QualifiedName]resource.Quantity{
			"shares":    resource.MustParse("2"),
			"bandwidth": resource.MustParse("1Gi"),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"DRACONFORM_2_REQUEST=req/sub",
		"DRACONFORM_2_POOL=node-a",
		"DRACONFORM_2_DEVICE=shared-0",
		"DRACONFORM_2_SHARE_ID=6f1c",
		"DRACONFORM_2_CONSUMED_BANDWIDTH=1Gi",
		"DRACONFORM_2_CONSUMED_SHARES=2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResultEnv (-want +got):\n%s", diff)
	}
}

func TestResultEnvWithoutShare(t *testing.T) {
	got, err := ResultEnv(0, resourceapi.DeviceRequestAllocationResult{Request: "r", Pool: "p", Device: "whole-0"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"DRACONFORM_0_REQUEST=r", "DRACONFORM_0_POOL=p", "DRACONFORM_0_DEVICE=whole-0", "DRACONFORM_0_SHARE_ID="}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResultEnv (-want +got):\n%s", diff)
	}
}

func TestResultEnvCollision(t *testing.T) {
	_, err := ResultEnv(0, resourceapi.DeviceRequestAllocationResult{
		ConsumedCapacity: map[resourceapi.QualifiedName]resource.Quantity{
			"x.y/a": resource.MustParse("1"),
			"x_y_a": resource.MustParse("1"),
		},
	})
	want := `consumed capacities "x.y/a" and "x_y_a" both map to DRACONFORM_0_CONSUMED_X_Y_A`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

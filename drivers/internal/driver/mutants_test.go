package driver

import (
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/draconform/draconform/drivers/config"
	"github.com/draconform/draconform/drivers/mutant"
)

func TestMutantsPrepareTheWrongThing(t *testing.T) {
	share := types.UID("share-1")
	result := resourceapi.DeviceRequestAllocationResult{
		Request: "r", Driver: DriverName, Pool: "n", Device: "shared-0", ShareID: &share,
		ConsumedCapacity: map[resourceapi.QualifiedName]resource.Quantity{"shares": resource.MustParse("1")},
	}
	devices := config.Default().Devices
	defer func(was string) { mutant.Active = was }(mutant.Active)

	mutant.Active = ""
	if got := mutate(result, devices); got.ShareID == nil {
		t.Errorf("the real build changed the result: %+v", got)
	} else if q := got.ConsumedCapacity["shares"]; q.String() != "1" {
		t.Errorf("the real build changed the result: %+v", got)
	}
	mutant.Active = "whole-device"
	got := mutate(result, devices)
	if q := got.ConsumedCapacity["shares"]; q.String() != "4" {
		t.Errorf("whole-device: shares %s, want the device's 4", q.String())
	}
	if q := got.ConsumedCapacity["bandwidth"]; q.String() != "10Gi" {
		t.Errorf("whole-device: bandwidth %s, want the device's 10Gi", q.String())
	}
	if q := result.ConsumedCapacity["shares"]; q.String() != "1" {
		t.Error("mutate changed its input")
	}
	mutant.Active = "no-share-id"
	if got := mutate(result, devices); got.ShareID != nil {
		t.Errorf("no-share-id kept %v", *got.ShareID)
	}
	for _, name := range mutant.Names() {
		if _, err := mutant.LinkerFlag(name); err != nil {
			t.Error(err)
		}
	}
	if _, err := mutant.LinkerFlag("nope"); err == nil {
		t.Error("an unknown mutant has a flag")
	}
}

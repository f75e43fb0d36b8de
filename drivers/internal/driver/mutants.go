package driver

import (
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"

	"github.com/draconform/draconform/drivers/config"
	"github.com/draconform/draconform/drivers/mutant"
)

// mutate is what a mutant build (drivers/mutant) does to a result before
// preparing it; a real build never calls it.
func mutate(result resourceapi.DeviceRequestAllocationResult, devices []config.Device) resourceapi.DeviceRequestAllocationResult {
	switch mutant.Active {
	case "whole-device":
		for _, d := range devices {
			if d.Name != result.Device {
				continue
			}
			result.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{}
			for name, c := range d.Capacity {
				if c.Value != nil {
					result.ConsumedCapacity[resourceapi.QualifiedName(name)] = c.Value.DeepCopy()
				}
			}
		}
	case "no-share-id":
		result.ShareID = nil
	}
	return result
}

// firstShareForAll is the first-share-for-every-container mutant: every
// request is given the CDI device of the claim's first result, so each
// container of a pod sees the first container's share.
func firstShareForAll(devices []kubeletplugin.Device) []kubeletplugin.Device {
	for i := range devices {
		devices[i].CDIDeviceIDs = devices[0].CDIDeviceIDs
	}
	return devices
}

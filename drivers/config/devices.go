package config

import (
	"slices"

	resourceapi "k8s.io/api/resource/v1"
)

// APIDevices converts the config into the devices of a resource.k8s.io/v1
// ResourceSlice, in config order.
func (c *Config) APIDevices() []resourceapi.Device {
	devices := make([]resourceapi.Device, 0, len(c.Devices))
	for _, d := range c.Devices {
		device := resourceapi.Device{Name: d.Name}
		if d.AllowMultipleAllocations {
			allow := true
			device.AllowMultipleAllocations = &allow
		}
		if len(d.Attributes) > 0 {
			device.Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}
			for name, a := range d.Attributes {
				device.Attributes[resourceapi.QualifiedName(name)] = resourceapi.DeviceAttribute{
					StringValue: a.String, IntValue: a.Int, BoolValue: a.Bool,
				}
			}
		}
		if len(d.Capacity) > 0 {
			device.Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{}
			for name, c := range d.Capacity {
				device.Capacity[resourceapi.QualifiedName(name)] = apiCapacity(c)
			}
		}
		devices = append(devices, *device.DeepCopy())
	}
	return devices
}

func apiCapacity(c Capacity) resourceapi.DeviceCapacity {
	var capacity resourceapi.DeviceCapacity
	if c.Value != nil {
		capacity.Value = *c.Value
	}
	if p := c.RequestPolicy; p != nil {
		policy := &resourceapi.CapacityRequestPolicy{
			Default:     p.Default,
			ValidValues: slices.Clone(p.ValidValues),
		}
		if r := p.ValidRange; r != nil {
			policy.ValidRange = &resourceapi.CapacityRequestPolicyRange{Min: r.Min, Max: r.Max, Step: r.Step}
		}
		capacity.RequestPolicy = policy
	}
	return capacity
}

// DeviceNames lists the configured device names, in config order.
func (c *Config) DeviceNames() []string {
	names := make([]string, 0, len(c.Devices))
	for _, d := range c.Devices {
		names = append(names, d.Name)
	}
	return names
}

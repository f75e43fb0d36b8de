// Package config is the device configuration of the draconform test driver:
// which devices it publishes in its node's ResourceSlice. The same types are
// read by the driver (from --config) and rendered into the ConfigMap of its
// deployment, so what is documented, deployed and published cannot drift.
package config

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// Config is the content of the driver's config file.
type Config struct {
	// Devices are published in this order, all in one pool named after the node.
	Devices []Device `json:"devices"`
}

// Device is one device of the node's pool.
type Device struct {
	// Name is the device name in the ResourceSlice (a DNS label).
	Name string `json:"name"`
	// AllowMultipleAllocations lets the scheduler allocate shares of the
	// device to several requests (KEP-5075 consumable capacity).
	AllowMultipleAllocations bool `json:"allowMultipleAllocations,omitempty"`
	// Attributes are published as device attributes; CEL selectors see
	// unqualified names under the driver's domain.
	Attributes map[string]Attribute `json:"attributes,omitempty"`
	// Capacity is published as device capacity, keyed by capacity name.
	Capacity map[string]Capacity `json:"capacity,omitempty"`
}

// Capacity is one capacity of a device.
type Capacity struct {
	// Value is required: a pointer, so that a missing value is an error
	// rather than a silent zero.
	Value *resource.Quantity `json:"value"`
	// RequestPolicy says how much of a shareable device's capacity one
	// request consumes.
	RequestPolicy *RequestPolicy `json:"requestPolicy,omitempty"`
}

// RequestPolicy mirrors resource.k8s.io/v1 CapacityRequestPolicy.
type RequestPolicy struct {
	Default     *resource.Quantity  `json:"default,omitempty"`
	ValidValues []resource.Quantity `json:"validValues,omitempty"`
	ValidRange  *ValidRange         `json:"validRange,omitempty"`
}

// ValidRange mirrors resource.k8s.io/v1 CapacityRequestPolicyRange.
type ValidRange struct {
	Min  *resource.Quantity `json:"min,omitempty"`
	Max  *resource.Quantity `json:"max,omitempty"`
	Step *resource.Quantity `json:"step,omitempty"`
}

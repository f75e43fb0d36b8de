package config

import "k8s.io/apimachinery/pkg/api/resource"

// Default is the config the deployment ships: one shareable device whose
// shares and bandwidth are consumed per allocation (the KEP-6406 cases), and
// one ordinary device with the same "shares" capacity but no bandwidth, which
// class selectors use to tell the two apart.
func Default() *Config {
	q := resource.MustParse
	ptr := func(v resource.Quantity) *resource.Quantity { return &v }
	return &Config{Devices: []Device{
		{
			Name:                     "shared-0",
			AllowMultipleAllocations: true,
			Capacity: map[string]Capacity{
				"shares": {
					Value: ptr(q("4")),
					RequestPolicy: &RequestPolicy{
						Default:    ptr(q("1")),
						ValidRange: &ValidRange{Min: ptr(q("1")), Max: ptr(q("4")), Step: ptr(q("1"))},
					},
				},
				"bandwidth": {
					Value:         ptr(q("10Gi")),
					RequestPolicy: &RequestPolicy{Default: ptr(q("1Gi"))},
				},
			},
		},
		{
			Name: "whole-0",
			Capacity: map[string]Capacity{
				"shares": {Value: ptr(q("4"))},
			},
		},
	}}
}

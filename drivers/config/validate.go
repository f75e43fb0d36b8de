package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/draconform/draconform/drivers/envcontract"
)

// maxValidValues is the API's limit on requestPolicy.validValues.
const maxValidValues = 10

// Validate checks what the API server would reject in the published slice,
// so that a bad config fails the driver at start with the field at fault
// instead of as an asynchronous publishing error, and a few things the API
// allows but this driver cannot serve (colliding environment names).
func (c *Config) Validate() error {
	return c.validate().ToAggregate()
}

func (c *Config) validate() field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("devices")
	switch {
	case len(c.Devices) == 0:
		errs = append(errs, field.Required(path, "at least one device"))
	case len(c.Devices) > resourceapi.ResourceSliceMaxDevices:
		// All devices go into one slice.
		errs = append(errs, field.TooMany(path, len(c.Devices), resourceapi.ResourceSliceMaxDevices))
	}
	names := map[string]bool{}
	for i, device := range c.Devices {
		p := path.Index(i)
		errs = append(errs, validateDevice(device, p)...)
		if device.Name != "" && names[device.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), device.Name))
		}
		names[device.Name] = true
	}
	return errs
}

func validateDevice(d Device, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if d.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		for _, msg := range content.IsDNS1123Label(d.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), d.Name, msg))
		}
	}
	if n := len(d.Attributes) + len(d.Capacity); n > resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
		errs = append(errs, field.Invalid(p, n, fmt.Sprintf("attributes and capacity together must have at most %d entries", resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice)))
	}
	for _, name := range slices.Sorted(maps.Keys(d.Attributes)) {
		ap := p.Child("attributes").Key(name)
		errs = append(errs, validateQualifiedName(name, ap)...)
		if attr := d.Attributes[name]; attr.numValues() != 1 {
			errs = append(errs, field.Invalid(ap, attr.invalid, "must be a string, an integer or a boolean"))
		}
	}
	envNames := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(d.Capacity)) {
		cp := p.Child("capacity").Key(name)
		errs = append(errs, validateQualifiedName(name, cp)...)
		errs = append(errs, validateCapacity(d.Capacity[name], cp)...)
		// Pods see consumed capacity by environment name; two capacities
		// sharing one would overwrite each other.
		env := envcontract.CapacityEnvName(name)
		if other, ok := envNames[env]; ok {
			errs = append(errs, field.Invalid(cp, name, fmt.Sprintf("has the same environment name %s as capacity %q", env, other)))
		}
		envNames[env] = name
	}
	return errs
}

// validateQualifiedName follows the API's rule for attribute and capacity
// names: a C identifier of at most 32 characters, optionally prefixed by a
// DNS subdomain of at most 63 characters and a slash.
func validateQualifiedName(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	id := name
	if domain, rest, qualified := strings.Cut(name, "/"); qualified {
		id = rest
		switch {
		case domain == "":
			errs = append(errs, field.Invalid(p, name, "the domain must not be empty"))
		case len(domain) > resourceapi.DeviceMaxDomainLength:
			errs = append(errs, field.Invalid(p, name, fmt.Sprintf("the domain must be no more than %d characters", resourceapi.DeviceMaxDomainLength)))
		default:
			for _, msg := range content.IsDNS1123Subdomain(domain) {
				errs = append(errs, field.Invalid(p, name, "domain: "+msg))
			}
		}
	}
	switch {
	case id == "":
		errs = append(errs, field.Invalid(p, name, "the name must not be empty"))
	case len(id) > resourceapi.DeviceMaxIDLength:
		errs = append(errs, field.Invalid(p, name, fmt.Sprintf("the name must be no more than %d characters", resourceapi.DeviceMaxIDLength)))
	default:
		for _, msg := range content.IsCIdentifier(id) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
	}
	return errs
}

func validateCapacity(c Capacity, p *field.Path) field.ErrorList {
	if c.Value == nil {
		return field.ErrorList{field.Required(p.Child("value"), "")}
	}
	var errs field.ErrorList
	if c.Value.Sign() < 0 {
		errs = append(errs, field.Invalid(p.Child("value"), c.Value.String(), "must not be negative"))
	}
	if c.RequestPolicy != nil {
		errs = append(errs, validateRequestPolicy(*c.Value, *c.RequestPolicy, p.Child("requestPolicy"))...)
	}
	return errs
}

func validateRequestPolicy(capacity resource.Quantity, policy RequestPolicy, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if policy.Default != nil && policy.Default.Cmp(capacity) > 0 {
		errs = append(errs, field.Invalid(p.Child("default"), policy.Default.String(), "must not be larger than the capacity value "+capacity.String()))
	}
	switch {
	case len(policy.ValidValues) > 0 && policy.ValidRange != nil:
		errs = append(errs, field.Forbidden(p, "validValues and validRange are mutually exclusive"))
	case len(policy.ValidValues) > 0:
		errs = append(errs, validateValidValues(capacity, policy.Default, policy.ValidValues, p)...)
	case policy.ValidRange != nil:
		errs = append(errs, validateValidRange(capacity, policy.Default, *policy.ValidRange, p)...)
	}
	return errs
}

func validateValidValues(capacity resource.Quantity, def *resource.Quantity, values []resource.Quantity, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	vp := p.Child("validValues")
	if def == nil {
		errs = append(errs, field.Required(p.Child("default"), "required when validValues is set"))
	}
	if len(values) > maxValidValues {
		errs = append(errs, field.TooMany(vp, len(values), maxValidValues))
	}
	foundDefault := false
	for i, v := range values {
		if i > 0 && values[i-1].Cmp(v) >= 0 {
			errs = append(errs, field.Invalid(vp.Index(i), v.String(), "must be larger than the value before it"))
		}
		if v.Cmp(capacity) > 0 {
			errs = append(errs, field.Invalid(vp.Index(i), v.String(), "must not be larger than the capacity value "+capacity.String()))
		}
		if def != nil && v.Cmp(*def) == 0 {
			foundDefault = true
		}
	}
	if def != nil && !foundDefault {
		errs = append(errs, field.Invalid(p.Child("default"), def.String(), "must be one of validValues"))
	}
	return errs
}

func validateValidRange(capacity resource.Quantity, def *resource.Quantity, r ValidRange, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	rp := p.Child("validRange")
	if def == nil {
		errs = append(errs, field.Required(p.Child("default"), "required when validRange is set"))
	}
	if r.Min == nil {
		return append(errs, field.Required(rp.Child("min"), "required when validRange is set"))
	}
	if r.Min.Sign() < 0 {
		errs = append(errs, field.Invalid(rp.Child("min"), r.Min.String(), "must not be negative"))
	}
	if r.Min.Cmp(capacity) > 0 {
		errs = append(errs, field.Invalid(rp.Child("min"), r.Min.String(), "must not be larger than the capacity value "+capacity.String()))
	}
	if def != nil && def.Cmp(*r.Min) < 0 {
		errs = append(errs, field.Invalid(p.Child("default"), def.String(), "must not be less than validRange.min "+r.Min.String()))
	}
	if r.Max != nil {
		if r.Max.Cmp(*r.Min) < 0 {
			errs = append(errs, field.Invalid(rp.Child("max"), r.Max.String(), "must not be less than min "+r.Min.String()))
		}
		if r.Max.Cmp(capacity) > 0 {
			errs = append(errs, field.Invalid(rp.Child("max"), r.Max.String(), "must not be larger than the capacity value "+capacity.String()))
		}
		if def != nil && def.Cmp(*r.Max) > 0 {
			errs = append(errs, field.Invalid(p.Child("default"), def.String(), "must not be larger than validRange.max "+r.Max.String()))
		}
	}
	if r.Step == nil {
		return errs
	}
	if r.Step.Sign() <= 0 {
		return append(errs, field.Invalid(rp.Child("step"), r.Step.String(), "must be greater than zero"))
	}
	// Milli units make fractional quantities like 500m comparable exactly.
	offStep := func(v resource.Quantity) bool {
		return (v.MilliValue()-r.Min.MilliValue())%r.Step.MilliValue() != 0
	}
	if def != nil && offStep(*def) {
		errs = append(errs, field.Invalid(p.Child("default"), def.String(), fmt.Sprintf("must be min %s plus a multiple of step %s", r.Min, r.Step)))
	}
	if r.Max != nil && offStep(*r.Max) {
		errs = append(errs, field.Invalid(rp.Child("max"), r.Max.String(), fmt.Sprintf("must be min %s plus a multiple of step %s", r.Min, r.Step)))
	}
	return errs
}

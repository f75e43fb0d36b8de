// Package mutants is the catalogue of known-broken implementations the
// suite must reject: every mutant's provider name, the mistake it makes,
// how a provider builds or runs it, and what a run against it showed. The
// broken code itself stays where it applies (prototype edits in
// tools/build/prototype/build, driver builds in drivers/mutant); this package is
// the one list the providers, the CLI and the README's table read.
package mutants

import (
	"github.com/draconform/draconform/drivers/mutant"
	"github.com/draconform/draconform/tools/build/prototype/build"
)

// Reference is the implementation every mutant is a variant of.
const Reference = "prototype"

// Provider names of the mutants that are ways of running the prototype
// rather than builds of their own, and the prefixes of the others.
const (
	// ProtobufScheduler reads API objects as protobuf, which the
	// prototype does not extend, so every synthesized request loses its
	// capacity.
	ProtobufScheduler = "prototype-protobuf-scheduler"
	// ProtobufStorage stores objects as protobuf, the API server's
	// default, so the field is lost on write although the gate is on.
	ProtobufStorage = "prototype-protobuf-storage"
	buildPrefix     = "prototype-"
	driverPrefix    = "prototype-driver-"
)

// Mutant is one known-broken implementation.
type Mutant struct {
	// Provider is the name --provider takes.
	Provider string
	Mistake  string
	// Equivalent, when set, says why no black-box case can tell the
	// mutant from the prototype.
	Equivalent string
	// Legal, set on a legal variant only, says why the KEP allows what it
	// does otherwise (a register entry, or the KEP's words): the suite must
	// certify it on every claim the prototype earns, and a claim it breaks
	// is a defect of the suite, not a kill.
	Legal   string
	Variant Variant
}

// Variant says how a provider makes the mutant from the prototype.
type Variant struct {
	Build             string // a build mutant of tools/build/prototype/build
	ProtobufScheduler bool
	ProtobufStorage   bool
	Driver            string // a broken build of the test driver (drivers/mutant)
	// Gates are set on every component of every cell, beneath the cell's
	// own: gates KEP-6406 does not depend on, turned off.
	Gates map[string]map[string]bool
}

// All lists every mutant in the mutation table's order: the prototype's
// build mutants, the protobuf runs, then the broken drivers.
func All() []Mutant {
	var out []Mutant
	for _, m := range build.Mutants() {
		out = append(out, Mutant{Provider: buildPrefix + m.Name, Mistake: m.Mistake, Equivalent: m.Equivalent, Variant: Variant{Build: m.Name}})
	}
	out = append(out,
		Mutant{Provider: ProtobufScheduler, Variant: Variant{ProtobufScheduler: true},
			Mistake: "scheduler reads API objects as protobuf, which the prototype does not extend: every synthesized request loses its capacity"},
		Mutant{Provider: ProtobufStorage, Variant: Variant{ProtobufStorage: true},
			Mistake: "API server stores objects as protobuf, its default, which the prototype does not extend: the field is lost on write with the gate on"})
	for _, name := range mutant.Names() {
		out = append(out, Mutant{Provider: driverPrefix + name, Mistake: mutant.Known[name], Variant: Variant{Driver: name}})
	}
	return out
}

// Legal lists the legal variants, in the variants table's order: builds of
// the prototype that do otherwise where the KEP leaves the choice open, then
// the prototype run with gates KEP-6406 does not depend on turned off.
func Legal() []Mutant {
	var out []Mutant
	for _, v := range build.Variants() {
		out = append(out, Mutant{Provider: buildPrefix + v.Name, Mistake: v.Mistake, Legal: v.Reading, Variant: Variant{Build: v.Name}})
	}
	everywhere := func(gates map[string]bool) map[string]map[string]bool {
		return map[string]map[string]bool{"kube-apiserver": gates, "kube-scheduler": gates, "kube-controller-manager": gates}
	}
	return append(out,
		Mutant{Provider: DeviceTaintsOff, Variant: Variant{Gates: everywhere(map[string]bool{"DRADeviceTaints": false, "DRADeviceTaintRules": false})},
			Mistake: "the prototype with DRADeviceTaints (and DRADeviceTaintRules, which needs it) off in every component: devices carry no taints",
			Legal:   "Dependencies: KEP-6406 depends on DRAExtendedResource and DRAConsumableCapacity only"},
		Mutant{Provider: PartitionableDevicesOff, Variant: Variant{Gates: everywhere(map[string]bool{"DRAPartitionableDevices": false})},
			Mistake: "the prototype with DRAPartitionableDevices off in every component: slices carry no shared counters",
			Legal:   "Dependencies: KEP-6406 depends on DRAExtendedResource and DRAConsumableCapacity only; Interaction: partitionable devices are \"orthogonal\""})
}

// The legal variants that are ways of running the prototype.
const (
	DeviceTaintsOff         = "prototype-device-taints-off"
	PartitionableDevicesOff = "prototype-partitionable-devices-off"
)

// Catalogue is every mutant, then every legal variant: what draconform
// mutation runs and docs/mutation.json holds, in that order.
func Catalogue() []Mutant { return append(All(), Legal()...) }

// Lookup finds a mutant or a legal variant by provider name, or by a
// build's own name.
func Lookup(name string) (Mutant, bool) {
	for _, m := range Catalogue() {
		if m.Provider == name || m.Provider == buildPrefix+name {
			return m, true
		}
	}
	return Mutant{}, false
}

// Names lists the provider name of every mutant and legal variant.
func Names() []string {
	var out []string
	for _, m := range Catalogue() {
		out = append(out, m.Provider)
	}
	return out
}

package build

// The allocator files of k8s.io/dynamic-resource-allocation. With the gates
// the cells set, kube-scheduler picks the incubating allocator; the
// experimental one (alpha DRA gates) gets the same mistake, so that a cell
// turning one of those on cannot hide it.
const (
	incubatingCapacity    = "structured/internal/incubating/consumable_capacity.go"
	experimentalCapacity  = "structured/internal/experimental/consumable_capacity.go"
	incubatingAllocator   = "structured/internal/incubating/allocator_incubating.go"
	experimentalAllocator = "structured/internal/experimental/allocator_experimental.go"
)

// allocatorMutants are mistakes of KEP-5075's allocator, which KEP-6406
// reuses unchanged: the suite must catch them through the claims the
// scheduler synthesizes, as a real implementation's allocator is no less
// part of what it ships.
func allocatorMutants() []Mutant {
	both := func(incubating, experimental string, edit func(file string) Edit) []Edit {
		return []Edit{edit(incubating), edit(experimental)}
	}
	// recorded replaces the line of Allocate that copies a device's
	// consumption into the allocation result: what the claim says, not
	// what the allocator counted.
	recorded := func(with string) []Edit {
		return both(incubatingAllocator, experimentalAllocator, func(file string) Edit {
			return replace(DRA, file, "\t\t\t\t\tconsumedCapacity[key] = val.DeepCopy()\n", with).in("func (a *Allocator) Allocate(")
		})
	}
	return []Mutant{
		{
			Name:    "consumed-ignores-rounding",
			Mistake: "allocator records the requested amount as consumedCapacity instead of the amount the device's requestPolicy rounds it up to",
			Edits: both(incubatingCapacity, experimentalCapacity, func(file string) Edit {
				return after(DRA, file, "\t\tif requestedCapacity != nil && requestedCapacity.Requests != nil {\n\t\t\tif requestedVal, requestedFound := requestedCapacity.Requests[name]; requestedFound {\n\t\t\t\trequestedValPtr = &requestedVal\n\t\t\t}\n\t\t}\n",
					`		if requestedValPtr != nil {
			// mutant: what was asked for is what is recorded.
			consumedCapacity[name] = requestedValPtr.DeepCopy()
			continue
		}
`).in("func GetConsumedCapacityFromRequest(")
			}),
		},
		{
			Name: "consumption-recorded-whole",
			Mistake: "allocator shares the device but records its whole capacity as the share's consumedCapacity: " +
				"the claim says a 1-share pod holds the device, and the next pod finds no room",
			Edits: recorded("\t\t\t\t\tconsumedCapacity[key] = val.DeepCopy()\n\t\t\t\t\tif d := internal.Device; d != nil {\n\t\t\t\t\t\tif c, ok := d.Capacity[key]; ok {\n\t\t\t\t\t\t\tconsumedCapacity[key] = c.Value.DeepCopy() // mutant: the whole device recorded\n\t\t\t\t\t\t}\n\t\t\t\t\t}\n"),
		},
		{
			Name: "consumption-under-another-key",
			Mistake: "allocator records a share's consumedCapacity under the capacity's name spelled with the driver's domain, not as the device publishes it: " +
				"the device's own capacity looks untouched, and later pods overbook it",
			Edits: recorded("\t\t\t\t\tconsumedCapacity[resourceapi.QualifiedName(internal.id.Driver.String()+\"/\"+string(key))] = val.DeepCopy() // mutant: another key\n"),
		},
		{
			Name:    "allocator-ignores-capacity",
			Mistake: "allocator reads no capacity requests from an exact request: every allocation of a shareable device consumes its whole capacity (or its requestPolicy default)",
			Edits: both(incubatingAllocator, experimentalAllocator, func(file string) Edit {
				return replace(DRA, file, "\treturn d.request.Exactly.Capacity\n", "\treturn nil // mutant: capacity requests are not read\n").
					in("func (d *exactDeviceRequestAccessor) capacities()")
			}),
		},
		{
			Name:    "allocator-without-share-id",
			Mistake: "allocator leaves shareID unset in the allocation result of a shareable device: allocations of one device cannot be told apart",
			Edits: both(incubatingAllocator, experimentalAllocator, func(file string) Edit {
				return replace(DRA, file, "\t\t\tshareID = GenerateNewShareID()\n", "\t\t\t// mutant: no share ID is generated\n").
					in("func (alloc *allocator) allocateDevice(")
			}),
		},
	}
}

package build

const extendedResourceCache = "deviceclass/extendedresourcecache/extendedresourcecache.go"

// cacheFixEdits backports the gist of the k8s.io/dynamic-resource-allocation
// v0.38.0-beta.0 fix to the scheduler's extended resource -> DeviceClass cache.
//
// In v0.37.2 an update of a class with an explicit extendedResourceName finds
// the cached copy of the same class as a "clash", compares it with itself
// (same creation time, same name) and returns early: the update is ignored,
// and the scheduler keeps reading the class's old extendedResourceCapacityRequests
// until it restarts. Deleting or renaming the name of a losing class also
// deleted the winner's mapping. v0.38 keeps every class that declares an
// explicit name as a candidate and derives the winner (newest, then lowest
// name) on each event; these edits do the same.
func cacheFixEdits() Group {
	return Group{Name: "extended resource cache fix", Edits: append(cacheFixHandlerEdits(), cacheFixHelpers())}
}

// cacheFixHandlerEdits keep every class that declares an explicit name in
// the cache, and make its update and delete handlers go through them.
func cacheFixHandlerEdits() []Edit {
	return []Edit{
		// All candidates per explicit name, so that the winner can be recomputed on every event.
		after(DRA, extendedResourceCache, "\tresourceName2class map[v1.ResourceName]*resourceapi.DeviceClass\n", `	// explicitResourceName2classes maps an explicit extended resource name
	// to every class declaring it, keyed by class name (backport of the
	// v0.38 fix). Allocated on first use.
	explicitResourceName2classes map[v1.ResourceName]map[string]*resourceapi.DeviceClass
`).in("type ExtendedResourceCache struct {"),

		cacheFixUpdateEdit(),

		// A deleted class gives up its explicit name to the next candidate instead of deleting whatever holds the name.
		replace(DRA, extendedResourceCache, `	if deviceClass.Spec.ExtendedResourceName != nil {
		delete(c.resourceName2class, v1.ResourceName(*deviceClass.Spec.ExtendedResourceName))
	}
`, "\tc.dropExplicitCandidate(deviceClass.Name)\n").in("func (c *ExtendedResourceCache) removeResourceName2class("),
	}
}

// cacheFixHelpers adds the handlers' helpers, dropExplicitCandidate and
// recomputeExplicitWinner; the winner rule is v0.37.2's (newer class, then
// lower name), now applied to all candidates.
func cacheFixHelpers() Edit {
	return before(DRA, extendedResourceCache, "// updateClass2ResourceName updates the cache with the device class mapping.\n", `// dropExplicitCandidate removes a class from the candidates of the explicit
// name it declares, if any, and recomputes that name's winner.
// Must be called with c.mutex held.
func (c *ExtendedResourceCache) dropExplicitCandidate(className string) {
	for explicitName, classes := range c.explicitResourceName2classes {
		if _, ok := classes[className]; !ok {
			continue
		}
		delete(classes, className)
		if len(classes) == 0 {
			delete(c.explicitResourceName2classes, explicitName)
		}
		c.recomputeExplicitWinner(explicitName)
		// A class declares at most one explicit name.
		return
	}
}

// recomputeExplicitWinner maps explicitName to its best candidate, or
// removes the mapping when no candidate is left.
// Must be called with c.mutex held.
func (c *ExtendedResourceCache) recomputeExplicitWinner(explicitName v1.ResourceName) {
	var winner *resourceapi.DeviceClass
	for _, class := range c.explicitResourceName2classes[explicitName] {
		if winner == nil {
			winner = class
			continue
		}
		switch cmp.Compare(class.CreationTimestamp.UnixNano(), winner.CreationTimestamp.UnixNano()) {
		case 1:
			winner = class
		case 0:
			if class.Name < winner.Name {
				winner = class
			}
		}
	}
	if winner == nil {
		delete(c.resourceName2class, explicitName)
		return
	}
	c.resourceName2class[explicitName] = winner
	c.logger.V(5).Info("Updated extended resource cache for explicit mapping",
		"extendedResource", explicitName,
		"deviceClass", winner.Name)
}

`)
}

// cacheFixUpdateEdit replaces the early-returning clash check and the blind
// delete of the old explicit mapping by candidate bookkeeping.
func cacheFixUpdateEdit() Edit {
	return replace(DRA, extendedResourceCache, `	var classWithSameExtendedResourceName *resourceapi.DeviceClass
	if newDeviceClass.Spec.ExtendedResourceName != nil {
		classWithSameExtendedResourceName = c.resourceName2class[v1.ResourceName(*newDeviceClass.Spec.ExtendedResourceName)]
	}
	if classWithSameExtendedResourceName != nil {
		switch cmp.Compare(newDeviceClass.CreationTimestamp.UnixNano(), classWithSameExtendedResourceName.CreationTimestamp.UnixNano()) {
		case -1:
			// New class is older, keep the current more recent one.
			return
		case 0:
			// Equal, arbitrarily prefer "lower" name.
			if newDeviceClass.Name >= classWithSameExtendedResourceName.Name {
				return
			}
		}
	}

	// Remove old mappings first to handle ExtendedResourceName changes
	if oldDeviceClass != nil {
		delete(c.resourceName2class, v1.ResourceName(resourceapi.ResourceDeviceClassPrefix+oldDeviceClass.Name))
		if oldDeviceClass.Spec.ExtendedResourceName != nil {
			delete(c.resourceName2class, v1.ResourceName(*oldDeviceClass.Spec.ExtendedResourceName))
		}
	}

	// Add new mappings
	if newDeviceClass.Spec.ExtendedResourceName != nil {
		c.resourceName2class[v1.ResourceName(*newDeviceClass.Spec.ExtendedResourceName)] = newDeviceClass
		c.logger.V(5).Info("Updated extended resource cache for explicit mapping",
			"extendedResource", *newDeviceClass.Spec.ExtendedResourceName,
			"deviceClass", newDeviceClass.Name)
	}
`, `	// The freshly received object replaces any cached copy of the same
	// class, whatever explicit name that copy declared.
	c.dropExplicitCandidate(newDeviceClass.Name)
	if newDeviceClass.Spec.ExtendedResourceName != nil {
		explicitName := v1.ResourceName(*newDeviceClass.Spec.ExtendedResourceName)
		if c.explicitResourceName2classes == nil {
			c.explicitResourceName2classes = make(map[v1.ResourceName]map[string]*resourceapi.DeviceClass)
		}
		if c.explicitResourceName2classes[explicitName] == nil {
			c.explicitResourceName2classes[explicitName] = make(map[string]*resourceapi.DeviceClass)
		}
		c.explicitResourceName2classes[explicitName][newDeviceClass.Name] = newDeviceClass
		c.recomputeExplicitWinner(explicitName)
	}
`).in("func (c *ExtendedResourceCache) updateResourceName2class(")
}

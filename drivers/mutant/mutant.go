// Package mutant names the deliberately broken builds of the test driver:
// draconform mutation runs the suite against each to show the kubelet cases
// catch a driver that prepares the wrong thing. A broken build is made only
// with the linker flag LinkerFlag gives; every other build is the real one.
package mutant

import (
	"fmt"
	"maps"
	"slices"
)

// Active is the mutant this binary was built as; empty in a real build.
var Active string

// Known are the broken builds, by name, with the mistake each makes.
var Known = map[string]string{
	"whole-device":                    "test driver prepares the whole device: the container gets the device's full capacity, not the allocated share",
	"no-share-id":                     "test driver drops the allocation's shareID: the container cannot tell its share from another pod's",
	"first-share-for-every-container": "test driver gives every request of a claim the CDI device of its first result: in a pod of two containers, each sees the first container's share",
}

// LinkerFlag is the -ldflags value that builds mutant name.
func LinkerFlag(name string) (string, error) {
	if _, ok := Known[name]; !ok {
		return "", fmt.Errorf("unknown driver mutant %q (known: %v)", name, Names())
	}
	return "-X github.com/draconform/draconform/drivers/mutant.Active=" + name, nil
}

// Names lists the known mutants, sorted.
func Names() []string { return slices.Sorted(maps.Keys(Known)) }

package shards

import (
	"testing"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/runner"
)

// infoOnly is a provider that says only what Info says.
type infoOnly struct {
	cluster.Provider
	info cluster.Info
}

func (p infoOnly) Info() cluster.Info { return p.info }

// A run splits only over more than one process, on targets that all allow it.
func TestProcesses(t *testing.T) {
	sep := []runner.Target{{Name: "local", Provider: infoOnly{info: cluster.Info{SeparateCells: true}}}}
	mixed := append(sep, runner.Target{Name: "kind", Provider: infoOnly{}})
	auto := AutoParallel()
	if auto == 1 {
		auto = 0
	}
	for _, c := range []struct {
		name     string
		parallel int
		targets  []runner.Target
		want     int
	}{
		{"three asked", 3, sep, 3},
		{"one asked: in this process", 1, sep, 0},
		{"a target that shares clusters", 3, mixed, 0},
		{"no target", 3, nil, 0},
		{"not asked: as the machine allows", 0, sep, auto},
	} {
		if got := Processes(c.parallel, c.targets); got != c.want {
			t.Errorf("%s: Processes(%d) = %d, want %d", c.name, c.parallel, got, c.want)
		}
	}
}

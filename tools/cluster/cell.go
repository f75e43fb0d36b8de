package cluster

import "github.com/draconform/draconform/tools/lang/spec"

// CellGates is the gates a cell asks each component to run with: the one
// place a cell of the specs becomes a GateState, for the runner, kind's
// configs and `draconform up` alike.
func CellGates(cell *spec.Cell) GateState {
	out := GateState{}
	for comp, g := range cell.Gates {
		out[Component(comp)] = Gates(g)
	}
	return out
}

// CellReleased are the components a version-skew cell runs from released
// binaries.
func CellReleased(cell *spec.Cell) []Component {
	var out []Component
	for _, comp := range cell.Released {
		out = append(out, Component(comp))
	}
	return out
}

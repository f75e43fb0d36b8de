package runner

import (
	"context"
	"errors"
	"slices"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
)

// restartKey names one restart a cell's cases make: the component, the
// binary it names, if any, and the gates it asks for.
func restartKey(r *spec.Restart) string {
	key := r.Component
	if r.Binary != "" {
		key += " from the " + r.Binary + " binary"
	}
	return key + " {" + cluster.Gates(r.Gates).Flag() + "}"
}

// restartReleased are the components that run from released binaries once
// r has run on a cell that runs released from them.
func restartReleased(r *spec.Restart, released []cluster.Component) []cluster.Component {
	if r.Binary == "" {
		return released
	}
	comp := cluster.Component(r.Component)
	out := slices.DeleteFunc(slices.Clone(released), func(c cluster.Component) bool { return c == comp })
	if r.Binary == spec.BinaryReleased {
		out = append(out, comp)
	}
	return out
}

// restartSteps are the restarts a case may make: its steps' and its gap's.
func restartSteps(c *spec.Case) []*spec.Restart {
	var out []*spec.Restart
	add := func(list []spec.Step) {
		for i := range list {
			if list[i].Restart != nil {
				out = append(out, list[i].Restart)
			}
		}
	}
	add(c.Steps)
	if c.Gap != nil {
		add(c.Gap.Closed)
	}
	return out
}

// refusedRestarts asks the cell's binaries, before any case runs, about
// every restart the cell's cases on target make, as cells are judged before
// they start: a restart's gates the binary refuses, by restartKey, with its
// reason. A provider that cannot ask gives none; a restart it could not
// tell about is left to the restart itself (see steps.Restart).
func (s *session) refusedRestarts(ctx context.Context, t Target, cell *spec.Cell) map[string]string {
	if !t.Provider.Info().ChecksGates {
		return nil
	}
	out := map[string]string{}
	asked := map[string]bool{}
	for _, c := range s.opts.Plan {
		if c.Cell.Name != cell.Name || (c.Target != "" && c.Target != t.Name) {
			continue
		}
		for _, r := range restartSteps(c.Case) {
			key := restartKey(r)
			if asked[key] {
				continue
			}
			asked[key] = true
			why, err := t.Provider.GatesRefused(ctx, cluster.Component(r.Component), cluster.Gates(r.Gates), restartReleased(r, cluster.CellReleased(cell)))
			switch {
			case err != nil:
				s.logf("%s: %v", stateKey(t.Name, cell.Name), err)
			case why != "":
				out[key] = why
				s.logf("%s: the cases that restart %s will be skipped: %s", stateKey(t.Name, cell.Name), key, why)
			}
		}
	}
	return out
}

// refusedRestart says why a case does not apply to its cell because one of
// its restarts asks for gates the binary refuses; "" when none does.
func refusedRestart(c plan.Case, st *cellState) string {
	for _, r := range restartSteps(c.Case) {
		if why := st.RestartsRefused[restartKey(r)]; why != "" {
			return "a restart asks for gates its binary does not offer: " + why
		}
	}
	return ""
}

// gatesNotOffered is the refusal a restart step met, if err holds one: the
// case is then skipped as not applying, not failed.
func gatesNotOffered(err error) *cluster.GatesNotOffered {
	var no *cluster.GatesNotOffered
	if errors.As(err, &no) {
		return no
	}
	return nil
}

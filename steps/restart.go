package steps

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/spec"
)

// Restart restarts one component with other gates. Every case on the
// cluster sees it, so the plan marks such cases serial, and the cell's own
// gates come back when the case ends.
type Restart struct{ Spec *spec.Restart }

// Describe implements Step.
func (s *Restart) Describe() string {
	return fmt.Sprintf("restart %s with gates {%s}", s.Spec.Component, cluster.Gates(s.Spec.Gates).Flag())
}

// Run implements Step.
func (s *Restart) Run(ctx context.Context, env *Env) error {
	r, ok := env.Cluster.(cluster.Restarter)
	if !ok {
		return fmt.Errorf("%s: provider of %s cannot restart components: %w", s.Describe(), env.Cluster.Name(), cluster.ErrUnsupported)
	}
	comp := cluster.Component(s.Spec.Component)
	began := time.Now()
	if err := r.Restart(ctx, comp, cluster.Gates(s.Spec.Gates)); err != nil {
		if no := notOffered(comp, cluster.Gates(s.Spec.Gates), err); no != nil {
			env.logf("%s: the binary does not offer these gates, so the case does not apply here:\n%v", s.Describe(), err)
			return no
		}
		return fmt.Errorf("%s: %w", s.Describe(), err)
	}
	env.Measure(fmt.Sprintf("restart: %s with gates {%s} ready in %.2fs", comp, cluster.Gates(s.Spec.Gates).Flag(), time.Since(began).Seconds()))
	base := env.BaseGates[comp]
	env.Defer("restore "+string(comp)+" gates", func(ctx context.Context) error {
		// A case that already put the cell's gates back, or restarted the
		// component twice (two restores), needs no further restart: each
		// costs a minute on kind, and the case's time with it.
		if now := env.Cluster.Gates(); now != nil && now[comp].Equal(base) {
			return nil
		}
		began := time.Now()
		if err := r.Restart(ctx, comp, base); err != nil {
			return err
		}
		env.Measure(fmt.Sprintf("restart: %s back to the cell's gates {%s} ready in %.2fs", comp, base.Flag(), time.Since(began).Seconds()))
		return nil
	})
	return nil
}

// notOffered says whether a failed restart failed because the component's
// binary cannot take the gates (GA and locked, removed, or turned off under
// an enabled gate that depends on them, in the binary's own words; or a
// provider that said so before restarting anything): the case then does not
// apply to this cluster. Any other failure is nil here and fails the case.
// The provider has put the previous gates back either way.
func notOffered(comp cluster.Component, gates cluster.Gates, err error) *cluster.GatesNotOffered {
	var no *cluster.GatesNotOffered
	switch {
	case errors.As(err, &no):
		return no
	case cluster.GateRefusal(err.Error()) != "":
		return &cluster.GatesNotOffered{Component: comp, Gates: gates, Reason: cluster.GateRefusal(err.Error())}
	case errors.Is(err, cluster.ErrUnsupported):
		return &cluster.GatesNotOffered{Component: comp, Gates: gates, Reason: err.Error()}
	}
	return nil
}

func checkRestart(c Checker, st *spec.Step) {
	if !slices.Contains(spec.KnownComponents, st.Restart.Component) {
		c.Problem(st.Pos, c.Closest(st.Restart.Component, spec.KnownComponents), "restart: unknown component %q", st.Restart.Component)
	}
	c.Gates(st.Pos, st.Restart.Gates)
}

package steps

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/spec"
)

// Restart restarts one component with other gates. Every case on the
// cluster sees it, so the plan marks such cases serial, and the cell's own
// gates come back when the case ends.
type Restart struct{ Spec *spec.Restart }

// Describe implements Step.
func (s *Restart) Describe() string {
	from := ""
	switch s.Spec.Binary {
	case spec.BinaryReleased:
		from = " from the released binary"
	case spec.BinaryImplementation:
		from = " from the implementation's binary"
	}
	return fmt.Sprintf("restart %s%s with gates {%s}", s.Spec.Component, from, cluster.Gates(s.Spec.Gates).Flag())
}

// Run implements Step.
func (s *Restart) Run(ctx context.Context, env *Env) error {
	r, ok := cluster.RestarterOf(env.Cluster)
	if !ok {
		return fmt.Errorf("%s: provider of %s cannot restart components: %w", s.Describe(), env.Cluster.Name(), cluster.ErrUnsupported)
	}
	comp := cluster.Component(s.Spec.Component)
	restart, restore, binaryBack, err := s.binaryChoice(env, r, comp)
	if err != nil {
		return err
	}
	began := time.Now()
	if err := restart(ctx, cluster.Gates(s.Spec.Gates)); err != nil {
		if no := notOffered(comp, cluster.Gates(s.Spec.Gates), err); no != nil {
			env.logf("%s: the binary does not offer these gates, so the case does not apply here:\n%v", s.Describe(), err)
			return no
		}
		return fmt.Errorf("%s: %w", s.Describe(), err)
	}
	env.Measure(fmt.Sprintf("%s: ready in %.2fs", strings.Replace(s.Describe(), "restart ", "restart: ", 1), time.Since(began).Seconds()))
	base := env.BaseGates[comp]
	env.Defer("restore "+string(comp)+" gates", func(ctx context.Context) error {
		// A case that already put the cell's binary and gates back, or
		// restarted the component twice (two restores), needs no further
		// restart: each costs a minute on kind, and the case's time with it.
		if now := env.Cluster.Gates(); now != nil && now[comp].Equal(base) && binaryBack() {
			return nil
		}
		began := time.Now()
		if err := restore(ctx, base); err != nil {
			return err
		}
		env.Measure(fmt.Sprintf("restart: %s back to the cell's binary and gates {%s} ready in %.2fs", comp, base.Flag(), time.Since(began).Seconds()))
		return nil
	})
	return nil
}

// binaryChoice is how the step restarts comp and how the case puts it
// back: plain restarts, or, where Spec.Binary names a binary, through a
// provider that can choose, back to the binary comp ran from before the
// case's first binary restart. binaryBack says whether comp runs from that
// binary now.
func (s *Restart) binaryChoice(env *Env, r cluster.Restarter, comp cluster.Component) (restart, restore func(context.Context, cluster.Gates) error, binaryBack func() bool, err error) {
	plain := func(ctx context.Context, gates cluster.Gates) error { return r.Restart(ctx, comp, gates) }
	if s.Spec.Binary == "" {
		return plain, plain, func() bool { return true }, nil
	}
	br, ok := cluster.BinaryRestarterOf(env.Cluster)
	if !ok {
		return nil, nil, nil, &cluster.GatesNotOffered{Component: comp, Gates: cluster.Gates(s.Spec.Gates),
			Reason: "the provider of " + env.Cluster.Name() + " cannot run " + string(comp) + " from another binary: " + cluster.ErrUnsupported.Error()}
	}
	if env.baseReleased == nil {
		env.baseReleased = map[cluster.Component]bool{}
	}
	if _, seen := env.baseReleased[comp]; !seen {
		env.baseReleased[comp] = br.RunsReleased(comp)
	}
	base, released := env.baseReleased[comp], s.Spec.Binary == spec.BinaryReleased
	restart = func(ctx context.Context, gates cluster.Gates) error {
		return br.RestartBinary(ctx, comp, gates, released)
	}
	binaryBack = func() bool { return br.RunsReleased(comp) == base }
	restore = func(ctx context.Context, gates cluster.Gates) error {
		if binaryBack() {
			return plain(ctx, gates)
		}
		return br.RestartBinary(ctx, comp, gates, base)
	}
	return restart, restore, binaryBack, nil
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
	binaries := []string{spec.BinaryReleased, spec.BinaryImplementation}
	if b := st.Restart.Binary; b != "" && !slices.Contains(binaries, b) {
		c.Problem(st.Pos, c.Closest(b, binaries), "restart: binary is %q; it takes %s or %s", b, spec.BinaryReleased, spec.BinaryImplementation)
	}
}

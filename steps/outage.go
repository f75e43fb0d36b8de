package steps

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/spec"
)

// Outage takes one component away for a while and brings it back as it
// was. Every case on the cluster sees it, so the plan marks such cases
// serial, as it does restarts.
type Outage struct{ Spec *spec.Outage }

// maxOutage keeps an outage from standing in for a wait.
const maxOutage = 2 * time.Minute

// Describe implements Step.
func (s *Outage) Describe() string {
	return fmt.Sprintf("outage: %s away for %s, then back as it was", s.Spec.Component, time.Duration(s.Spec.For))
}

// Run implements Step.
func (s *Outage) Run(ctx context.Context, env *Env) error {
	o, ok := cluster.OutagerOf(env.Cluster)
	if !ok {
		return fmt.Errorf("%s: provider of %s cannot take components away: %w", s.Describe(), env.Cluster.Name(), cluster.ErrUnsupported)
	}
	began := time.Now()
	if err := o.Outage(ctx, cluster.Component(s.Spec.Component), time.Duration(s.Spec.For)); err != nil {
		return fmt.Errorf("%s: %w", s.Describe(), err)
	}
	env.Measure(fmt.Sprintf("%s: served again %.2fs after it was stopped", s.Describe(), time.Since(began).Seconds()))
	return nil
}

func checkOutage(c Checker, st *spec.Step) {
	if !slices.Contains(spec.KnownComponents, st.Outage.Component) {
		c.Problem(st.Pos, c.Closest(st.Outage.Component, spec.KnownComponents), "outage: unknown component %q", st.Outage.Component)
	}
	if d := time.Duration(st.Outage.For); d <= 0 || d > maxOutage {
		c.Problem(st.Pos, "e.g. for: 20s", "outage: for: must be above 0 and at most %s", maxOutage)
	}
}

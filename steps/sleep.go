package steps

import (
	"context"
	"fmt"
	"time"

	"github.com/draconform/draconform/tools/spec"
)

// Sleep waits a fixed time, for what only the clock orders.
type Sleep struct{ Spec *spec.Sleep }

// Describe implements Step.
func (s *Sleep) Describe() string {
	return fmt.Sprintf("sleep %s (%s)", time.Duration(s.Spec.For), s.Spec.Why)
}

// Run implements Step.
func (s *Sleep) Run(ctx context.Context, _ *Env) error {
	t := time.NewTimer(time.Duration(s.Spec.For))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("sleep interrupted: %w", ctx.Err())
	}
}

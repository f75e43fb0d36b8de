package steps

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/lang/spec"
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

// maxSleep bounds a sleep step: anything longer is waiting for a condition,
// which an expectation with within: says better.
const maxSleep = 10 * time.Second

func checkSleep(c Checker, st *spec.Step) {
	if st.Sleep.For <= 0 || time.Duration(st.Sleep.For) > maxSleep {
		c.Problem(st.Pos, "e.g. for: 1100ms", "sleep: for: must be more than 0 and at most %s (expectations poll; a sleep is only for what the clock orders)", maxSleep)
	}
	if strings.TrimSpace(st.Sleep.Why) == "" {
		c.Problem(st.Pos, "why: <what the wait is for>", "sleep needs why:")
	}
}

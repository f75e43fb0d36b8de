package steps

import (
	"context"
	"time"
)

// Step is one action or expectation of a case.
type Step interface {
	// Describe says what the step does, in progress output and failures.
	Describe() string
	Run(ctx context.Context, env *Env) error
}

// Default bounds for waits a case does not bound itself. Scheduling a pod on
// the embedded control plane takes well under a second; these leave room for
// a loaded CI machine without letting a broken cluster hang a run.
const (
	defaultAssertWithin   = 10 * time.Second
	defaultScheduleWithin = 30 * time.Second
)

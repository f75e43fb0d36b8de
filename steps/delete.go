package steps

import (
	"context"
	"fmt"

	"github.com/draconform/draconform/tools/lang/spec"
)

// Delete deletes an object of the case.
type Delete struct{ Ref spec.Ref }

// Describe implements Step.
func (s *Delete) Describe() string { return "delete " + string(s.Ref) }

// Run implements Step.
func (s *Delete) Run(ctx context.Context, env *Env) error {
	c, err := env.Lookup(s.Ref)
	if err != nil {
		return err
	}
	if err := deleteFn(env, c)(ctx); err != nil {
		return fmt.Errorf("delete %s: %w", s.Ref, err)
	}
	return nil
}

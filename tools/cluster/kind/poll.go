package kind

import (
	"context"
	"fmt"
	"time"
)

// poll calls cond every interval until it is done, fails, or timeout
// passes; cond's transient failures are its own to swallow.
func poll(ctx context.Context, timeout, interval time.Duration, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		done, err := cond(ctx)
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not done after %s: %w", timeout, ctx.Err())
		case <-t.C:
		}
	}
}

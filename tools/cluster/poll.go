package cluster

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Poll calls cond every interval until it is done, fails, or timeout
// passes (apimachinery's wait, with the bound in the error); cond's
// transient failures are its own to swallow. Providers share it.
func Poll(ctx context.Context, timeout, interval time.Duration, cond func(context.Context) (bool, error)) error {
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, cond)
	if err != nil && wait.Interrupted(err) {
		return fmt.Errorf("not done after %s: %w", timeout, err)
	}
	return err
}

package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// WaitForDriver waits, for at most timeout, until driver publishes devices
// on a Ready node, and returns those nodes; none when the time ran out. A
// driver installed a moment ago (helm install --wait returns when its pods
// run, not when they have published) would otherwise have every case on
// its devices skip.
func WaitForDriver(ctx context.Context, cfg *rest.Config, driver string, timeout, every time.Duration) ([]string, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("a client for the ResourceSlices of %s: %w", driver, err)
	}
	return waitForDriver(ctx, dyn, driver, timeout, every)
}

func waitForDriver(ctx context.Context, dyn dynamic.Interface, driver string, timeout, every time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		nodes, err := driverNodes(ctx, dyn, driver)
		if len(nodes) > 0 {
			return nodes, nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return nil, ctx.Err()
			}
			// Out of time: the last answer's error says why, if any.
			return nil, err
		case <-time.After(every):
		}
	}
}

package runner

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/draconform/draconform/tools/lang/plan"
)

// casePool runs a process's cases beside each other on their cells'
// clusters, ahead of their ginkgo specs, which then replay the results in
// order. Cases are isolated by construction (a namespace, a driver, nodes
// and classes of their own), except in two ways the pool keeps apart:
//   - a case that restarts a component changes what every case of its
//     cell sees, and one that counts kube-scheduler's attempts at a pod
//     sees what every other case does (plan.Case.Alone): such a case is
//     not run ahead, and its spec first waits for the cell's cases run
//     ahead to end;
//   - the cases that need a kubelet share the one node of the cell and the
//     test driver's devices on it: they run one at a time.
type casePool struct {
	ctx     context.Context
	cancel  context.CancelFunc
	all     sync.WaitGroup
	futures map[string]*caseFuture
	cells   map[string]*sync.WaitGroup
}

type caseFuture struct {
	done chan struct{}
	r    *caseResult
}

// poolKey names a case of a target, as its spec runs it.
func poolKey(c plan.Case) string { return c.Target + "\x00" + c.ID }

// startPool runs cases, width at a time, as long as the session lives.
// Cases that need the cluster to themselves are left to their specs.
func startPool(s *session, cases []plan.Case, width int) *casePool {
	return startPoolWith(cases, width, func(ctx context.Context, c plan.Case) *caseResult { return execCase(ctx, s, c, false) })
}

// startPoolWith is startPool with the function that runs one case.
func startPoolWith(cases []plan.Case, width int, run func(context.Context, plan.Case) *caseResult) *casePool {
	ctx, cancel := context.WithCancel(context.Background())
	p := &casePool{ctx: ctx, cancel: cancel, futures: map[string]*caseFuture{}, cells: map[string]*sync.WaitGroup{}}
	slots := make(chan struct{}, width)
	nodeLanes := map[string]*sync.Mutex{}
	for _, c := range cases {
		if c.Alone {
			continue
		}
		cell := stateKey(c.Target, c.Cell.Name)
		if p.cells[cell] == nil {
			p.cells[cell], nodeLanes[cell] = &sync.WaitGroup{}, &sync.Mutex{}
		}
		f := &caseFuture{done: make(chan struct{})}
		p.futures[poolKey(c)] = f
		wg, lane := p.cells[cell], nodeLanes[cell]
		wg.Add(1)
		p.all.Add(1)
		go func() {
			defer p.all.Done()
			defer wg.Done()
			defer close(f.done)
			if c.Case.Requires.Kubelet() {
				lane.Lock()
				defer lane.Unlock()
			}
			// Channel senders wait in order: cases start roughly in the
			// order of their specs.
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				// select picks at random among ready cases: a slot freed
				// by the interrupt must not start a case.
				f.r = newCaseResult(false).fail("the run was interrupted before this case began")
				return
			}
			// A panic in a step would end the whole process here, where
			// ginkgo cannot catch it as it does in a spec: it fails the case.
			defer func() {
				if v := recover(); v != nil {
					f.r = newCaseResult(false).fail(fmt.Sprintf("panic while running the case: %v\n%s", v, debug.Stack()))
				}
			}()
			f.r = run(ctx, c)
		}()
	}
	return p
}

// result is the case's result when the pool ran it; nil when its spec is
// to run it. For a case that needs the cluster to itself it first waits for the cases of the cell
// the pool runs, so that the case has the cluster to itself.
func (p *casePool) result(ctx context.Context, c plan.Case) (*caseResult, error) {
	if p == nil {
		return nil, nil
	}
	if c.Alone {
		wg := p.cells[stateKey(c.Target, c.Cell.Name)]
		if wg == nil {
			return nil, nil
		}
		drained := make(chan struct{})
		go func() { wg.Wait(); close(drained) }()
		select {
		case <-drained:
			return nil, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("interrupted while waiting for the other cases of cell %s to end: %w", c.Cell.Name, ctx.Err())
		}
	}
	f := p.futures[poolKey(c)]
	if f == nil {
		return nil, nil
	}
	select {
	case <-f.done:
		return f.r, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("interrupted while waiting for the case, which runs beside others: %w", ctx.Err())
	}
}

// stop interrupts the cases still running and waits for their clean-up,
// which has a bound of its own: they must leave nothing on the cluster.
func (p *casePool) stop() {
	if p == nil {
		return
	}
	p.cancel()
	p.all.Wait()
}

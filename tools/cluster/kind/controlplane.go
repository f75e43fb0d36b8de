package kind

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/draconform/draconform/tools/cluster"
)

// kindCluster is one kind cluster the provider created or adopted. Cells
// take turns on it: each changes the control plane's gates in place, which
// takes seconds where a new cluster takes minutes.
type kindCluster struct {
	name       string
	kubeconfig string
	nodes      []nodes.Node
	cp         nodes.Node // the control-plane node, where the static pods run
	cfg        *rest.Config
	client     kubernetes.Interface
	api        controlPlaneAPI
	gateCache  *gateCache
	timing     timing
	logf       func(format string, args ...any)

	mu    sync.Mutex
	cell  string // the cell on it, "" when free
	gates cluster.GateState
}

// timing bounds the waits; tests shorten it.
type timing struct {
	interval, apiserver, component, reconnect time.Duration
	// backoff is how long a component may have no running container
	// while the API server comes back before it gets a new pod.
	backoff time.Duration
}

var defaultTiming = timing{interval: 2 * time.Second, apiserver: 4 * time.Minute, component: 3 * time.Minute, reconnect: 90 * time.Second, backoff: 15 * time.Second}

func (kc *kindCluster) restConfig() *rest.Config { return rest.CopyConfig(kc.cfg) }

func (kc *kindCluster) currentGates() cluster.GateState {
	kc.mu.Lock()
	defer kc.mu.Unlock()
	return kc.gates.Clone()
}

// apply brings every component to want. It asks the binaries first, so a
// gate they lack is a skip before anything changes; a component that then
// refuses its gates has its previous ones put back, with the others
// already changed, so the next cell finds a working control plane. force
// restarts those components even where their gates stay.
func (kc *kindCluster) apply(ctx context.Context, want cluster.GateState, force ...cluster.Component) error {
	kc.mu.Lock()
	defer kc.mu.Unlock()
	old := kc.gates.Clone()
	var plan []cluster.Component
	for _, c := range cluster.Components {
		if !old[c].Equal(want[c]) || slices.Contains(force, c) {
			plan = append(plan, c)
		}
	}
	for _, c := range plan {
		if len(want[c]) == 0 {
			continue
		}
		known, err := kc.gateCache.get(ctx, kc.cp, c)
		if err != nil {
			return err
		}
		if missing := cluster.UnknownGates(c, known, want[c]); len(missing) > 0 {
			return fmt.Errorf("%s: %w", strings.Join(missing, "; "), cluster.ErrUnsupported)
		}
	}
	for i, c := range plan {
		if err := kc.setComponent(ctx, c, want[c], slices.Contains(force, c)); err != nil {
			if rerr := kc.restore(ctx, plan[:i+1], old); rerr != nil {
				return fmt.Errorf("%w (putting the previous gates back failed too, cluster %s is unusable: %v)", err, kc.name, rerr)
			}
			return err
		}
	}
	return nil
}

func (kc *kindCluster) restore(ctx context.Context, comps []cluster.Component, old cluster.GateState) error {
	var errs []error
	for _, c := range comps {
		if err := kc.setComponent(ctx, c, old[c], false); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// setComponent gives c the gates by rewriting its static pod manifest, which
// the kubelet answers with a new pod, and waits until that pod serves. With
// the gates unchanged it writes nothing, and restarts the container only if
// force is set.
func (kc *kindCluster) setComponent(ctx context.Context, c cluster.Component, gates cluster.Gates, force bool) error {
	began := time.Now()
	data, err := readManifest(ctx, kc.cp, c)
	if err != nil {
		return err
	}
	cur, err := FeatureGatesOf(data, c)
	if err != nil {
		return fmt.Errorf("%s of %s: %w", manifestPath(c), kc.name, err)
	}
	changing := !cur.Equal(gates)
	if !changing && !force {
		return kc.waitServing(ctx, c, gates, nil, "")
	}
	before, holder, err := kc.runningNow(ctx, c)
	if err != nil {
		return err
	}
	// Same gates, forced: a new pod rather than a stopped container,
	// whose restarts the kubelet would delay more each time (10 s, 20 s,
	// 40 s...) in a run that restarts components again and again.
	edited, err := SetFeatureGates(data, c, gates)
	if err == nil && !changing {
		edited, err = stampRestart(edited)
	}
	if err != nil {
		return fmt.Errorf("%s of %s: %w", manifestPath(c), kc.name, err)
	}
	if err := writeManifest(ctx, kc.cp, c, edited); err != nil {
		return err
	}
	if err := kc.waitServing(ctx, c, gates, containerIDs(before), holder); err != nil {
		return fmt.Errorf("%s with --feature-gates=%q on %s: %w", c, gates.Flag(), kc.name, err)
	}
	if len(gates) == 0 {
		delete(kc.gates, c)
	} else {
		kc.gates[c] = maps.Clone(gates)
	}
	kc.logf("kind: %s on %s serves with --feature-gates=%q after %.0fs", c, kc.name, gates.Flag(), time.Since(began).Seconds())
	if c == cluster.APIServer {
		return kc.waitReconnected(ctx)
	}
	return nil
}

// runningNow is what a new pod of c must replace: its containers, and the
// holder of its leader lease (none for the API server), which the new one
// must take over before it acts.
func (kc *kindCluster) runningNow(ctx context.Context, c cluster.Component) ([]criContainer, string, error) {
	before, err := listContainers(ctx, kc.cp, c)
	if err != nil {
		return nil, "", err
	}
	holder := ""
	if name := leaseName(c); name != "" {
		if l, err := kc.api.lease(ctx, name); err == nil {
			holder = leaseHolder(l)
		}
	}
	return before, holder, nil
}

// waitServing waits until the kubelet runs c anew (a container not in
// before, unless before is nil) with gates, Ready, and, for the API server,
// answering /readyz; a scheduler or controller manager must also have
// taken its leader lease from oldHolder, or it would not act yet. A new
// container that exits is the component refusing its flags: its log is
// the error, which is how a cell's accepted start refusal reaches the
// runner.
func (kc *kindCluster) waitServing(ctx context.Context, c cluster.Component, gates cluster.Gates, before map[string]bool, oldHolder string) error {
	timeout := kc.timing.component
	if c == cluster.APIServer {
		timeout = kc.timing.apiserver
	}
	last := "nothing observed yet"
	err := cluster.Poll(ctx, timeout, kc.timing.interval, func(ctx context.Context) (bool, error) {
		if before != nil {
			all, err := listContainers(ctx, kc.cp, c)
			if err != nil {
				last = err.Error()
				return false, nil
			}
			fresh := newContainers(all, before)
			refused, why := kc.exitedWithLog(ctx, c, fresh)
			if refused != nil {
				return false, refused
			}
			if !anyRunning(fresh) {
				last = "the kubelet has not started a new " + string(c) + " container yet"
				if why != "" {
					last = why
				}
				return false, nil
			}
		}
		pod, err := kc.api.mirrorPod(ctx, mirrorPodName(c, kc.cp.String()))
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if ok, why := servingWith(pod, c, gates); !ok {
			last = why
			return false, nil
		}
		if c == cluster.APIServer {
			if err := kc.api.readyz(ctx); err != nil {
				last = "/readyz: " + err.Error()
				return false, nil
			}
		}
		if name := leaseName(c); name != "" && before != nil && oldHolder != "" {
			l, err := kc.api.lease(ctx, name)
			if err != nil {
				last = err.Error()
				return false, nil
			}
			if h := leaseHolder(l); h == "" || h == oldHolder {
				last = fmt.Sprintf("lease %s is still held by %q", name, oldHolder)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w; last: %s", err, last)
	}
	return err
}

// waitReconnected waits, after the API server came back, until the
// scheduler and controller manager have each renewed their lease through
// it. They reconnect by themselves, but on the embedded control plane
// relisting took up to 40 s, during which the scheduler saw no nodes; a
// renewal at least proves they reach the new server before a case starts.
func (kc *kindCluster) waitReconnected(ctx context.Context) error {
	for _, c := range []cluster.Component{cluster.Scheduler, cluster.ControllerManager} {
		if err := kc.waitRenewed(ctx, c); err != nil {
			return fmt.Errorf("%s on %s did not renew its lease after kube-apiserver restarted: %w", c, kc.name, err)
		}
	}
	return nil
}

// waitRenewed waits for a lease renewal by c. A component that could not
// renew while the API server was away exits (leader election lost), and
// the kubelet restarts it after a back-off that grows with every exit of
// the same pod, past a minute after a few API server restarts: one down
// for kc.timing.backoff gets a new pod instead, once.
func (kc *kindCluster) waitRenewed(ctx context.Context, c cluster.Component) error {
	name := leaseName(c)
	var first, down time.Time
	bounced := false
	return cluster.Poll(ctx, kc.timing.reconnect, kc.timing.interval, func(ctx context.Context) (bool, error) {
		if !bounced {
			if cs, err := listContainers(ctx, kc.cp, c); err == nil && !anyRunning(cs) {
				if down.IsZero() {
					down = time.Now()
				}
				if time.Since(down) < kc.timing.backoff {
					return false, nil
				}
				if err := kc.bounce(ctx, c); err != nil {
					return false, err
				}
				bounced, first = true, time.Time{}
				return false, nil
			}
			down = time.Time{}
		}
		l, err := kc.api.lease(ctx, name)
		if err != nil {
			return false, nil
		}
		if first.IsZero() {
			first = leaseRenewed(l)
			return false, nil
		}
		return leaseRenewed(l).After(first), nil
	})
}

// outage takes c's manifest out of the kubelet's static pod folder, which
// makes the kubelet stop its pod, waits until none of its containers runs
// and down has passed, and puts the manifest back as a new pod, its gates
// unchanged. The manifest comes back whatever fails in between: a cell
// without its API server or scheduler fails every later case.
func (kc *kindCluster) outage(ctx context.Context, c cluster.Component, down time.Duration) error {
	data, err := readManifest(ctx, kc.cp, c)
	if err != nil {
		return err
	}
	gates, err := FeatureGatesOf(data, c)
	if err != nil {
		return fmt.Errorf("%s: %w", manifestPath(c), err)
	}
	before, holder, err := kc.runningNow(ctx, c)
	if err != nil {
		return err
	}
	if _, err := nodeRun(ctx, kc.cp, nil, "rm", "-f", manifestPath(c)); err != nil {
		return fmt.Errorf("removing %s: %w", manifestPath(c), err)
	}
	began := time.Now()
	stopped := cluster.Poll(ctx, kc.timing.component, kc.timing.interval, func(ctx context.Context) (bool, error) {
		cs, err := listContainers(ctx, kc.cp, c)
		return err == nil && !anyRunning(cs), nil
	})
	if stopped == nil {
		select {
		case <-ctx.Done():
		case <-time.After(down):
		}
	}
	edited, err := stampRestart(data)
	if err == nil {
		err = writeManifest(context.WithoutCancel(ctx), kc.cp, c, edited)
	}
	if err != nil {
		return fmt.Errorf("putting %s back after the outage: %w", manifestPath(c), err)
	}
	if stopped != nil {
		return fmt.Errorf("the kubelet did not stop %s once its manifest was gone: %w", c, stopped)
	}
	if err := kc.waitServing(ctx, c, gates, containerIDs(before), holder); err != nil {
		return fmt.Errorf("%s after the outage: %w", c, err)
	}
	kc.logf("kind: %s on %s served again %.0fs after its manifest was taken away (down for %s)", c, kc.name, time.Since(began).Seconds(), down)
	if c == cluster.APIServer {
		return kc.waitReconnected(ctx)
	}
	return nil
}

// stampRestart makes a manifest a new pod for the kubelet, gates unchanged.
func stampRestart(manifest []byte) ([]byte, error) {
	return SetRestartAnnotation(manifest, time.Now().UTC().Format(time.RFC3339Nano))
}

// bounce gives c a new pod with its gates unchanged.
func (kc *kindCluster) bounce(ctx context.Context, c cluster.Component) error {
	data, err := readManifest(ctx, kc.cp, c)
	if err != nil {
		return err
	}
	edited, err := stampRestart(data)
	if err != nil {
		return fmt.Errorf("%s of %s: %w", manifestPath(c), kc.name, err)
	}
	kc.logf("kind: %s on %s exited after the API server restart and waits in the kubelet's back-off; starting it as a new pod", c, kc.name)
	return writeManifest(ctx, kc.cp, c, edited)
}

// exitedWithLog is the refusal of the first of fresh that exited and whose
// log can still be read. One whose log is gone (the kubelet removed it when
// it started the next, between the listing and the read) says nothing: why
// says so, and the next look finds its successor, which exits with the
// same words if the flags are refused.
func (kc *kindCluster) exitedWithLog(ctx context.Context, c cluster.Component, fresh []criContainer) (refused error, why string) {
	for _, ctr := range fresh {
		if !ctr.exited() {
			continue
		}
		logs, err := nodeCombined(ctx, kc.cp, crictlLogsArgv(ctr.ID)...)
		if err != nil {
			why = fmt.Sprintf("a new %s container exited and its log is gone: %v", c, err)
			continue
		}
		return refusal(c, string(logs)), ""
	}
	return nil, why
}

// refusal is the error of a component that exited under new flags. An
// unknown gate is a binary without the KEP, hence unsupported; anything
// else (a gate dependency, a bad value) is the component's answer.
func refusal(c cluster.Component, log string) error {
	msg := fmt.Sprintf("%s exited; the end of its log:\n%s", c, indent(strings.TrimSpace(log)))
	if unrecognizedGate(log) {
		return fmt.Errorf("%s: %w", msg, cluster.ErrUnsupported)
	}
	return errors.New(msg)
}

func anyRunning(cs []criContainer) bool {
	for _, c := range cs {
		if c.running() {
			return true
		}
	}
	return false
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// gateCache keeps what each component's binary said about its gates: every
// cluster of a provider runs the same binaries.
type gateCache struct {
	mu    sync.Mutex
	known map[cluster.Component]map[string]bool
}

func newGateCache() *gateCache { return &gateCache{known: map[cluster.Component]map[string]bool{}} }

func (g *gateCache) lookup(c cluster.Component) (map[string]bool, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	k, ok := g.known[c]
	return k, ok
}

func (g *gateCache) get(ctx context.Context, n nodes.Node, c cluster.Component) (map[string]bool, error) {
	if k, ok := g.lookup(c); ok {
		return k, nil
	}
	k, err := askGates(ctx, n, c)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.known[c] = k
	g.mu.Unlock()
	return k, nil
}

package localcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localnode"
	"github.com/draconform/draconform/tools/cluster/localproc"
	"github.com/draconform/draconform/tools/internal/bintrust"
)

// Cluster is one running local control plane.
type Cluster struct {
	opts Options
	log  *k8sbuild.SyncWriter
	name string
	cell string
	dir  string

	// Fixed at start; a restart reuses them so that clients keep working.
	pki        *pki
	private    string // the credentials' folder, removed by stop
	kubeconfig string
	etcdURL    string
	// apiPort is the proxy's port, which clients know; the API server
	// itself listens on a port of its own per run.
	apiPort int
	proxy   *apiProxy
	// schedPort is the running scheduler's health and metrics port.
	schedPort int
	// unlockDir releases the cell folder, which the cluster holds from
	// start to stop (lockCellDir).
	unlockDir func()

	mu sync.Mutex
	// procMu orders the writes of procs and started by launches that run
	// side by side, under mu.
	procMu  sync.Mutex
	gates   cluster.GateState
	procs   map[cluster.Component]*localproc.Process
	started []int           // every pid ever started, for leak checks
	node    *localnode.Node // nil until addNode
	// released are the components that run from Options.ReleasedBinDir.
	released map[cluster.Component]bool
	bins     []cluster.Binary
	// trust checks each binary before it starts (the provider's).
	trust *bintrust.Checker
}

func newCluster(opts Options, log *k8sbuild.SyncWriter, name, cell string, gates cluster.GateState) *Cluster {
	if gates == nil {
		gates = cluster.GateState{}
	}
	return &Cluster{
		opts:  opts,
		log:   log,
		name:  name,
		cell:  cell,
		dir:   filepath.Join(opts.OutDir, cell+opts.CellDirSuffix),
		gates: gates.Clone(),
		procs: map[cluster.Component]*localproc.Process{},
	}
}

// Name is e.g. "local-v1.37.2/all-default".
func (c *Cluster) Name() string { return c.name }

// Dir is the cell's output folder: its logs. Credentials, PKI and etcd data
// live in a private folder instead (see start), since people share output
// folders: CI uploads them, and certification bundles are made from them.
func (c *Cluster) Dir() string { return c.dir }

// RESTConfig returns a fresh admin config each call, so callers may mutate it.
func (c *Cluster) RESTConfig() *rest.Config {
	return adminRESTConfig(apiserverURL(c.apiPort), c.pki.CAPEM, c.pki.AdminToken)
}

// Gates reports the gates each component currently runs with.
func (c *Cluster) Gates() cluster.GateState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gates.Clone()
}

// logFile is the file that holds comp's log, every run of it appended;
// "" for a component the cell does not run.
func (c *Cluster) logFile(comp cluster.Component) string {
	switch comp {
	case Etcd, cluster.APIServer, cluster.Scheduler, cluster.ControllerManager:
		return c.logPath(comp)
	case cluster.Kubelet, cluster.Containerd:
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.node != nil {
			return c.node.LogPath(comp)
		}
	}
	return ""
}

func (c *Cluster) logPath(comp cluster.Component) string {
	return filepath.Join(c.dir, string(comp)+".log")
}

func (c *Cluster) start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.prepareFolders(); err != nil {
		return err
	}
	if err := c.launchEtcd(ctx); err != nil {
		return err
	}
	if err := c.launchComponent(ctx, cluster.APIServer); err != nil {
		return err
	}
	// The scheduler and the controller manager need only the API server:
	// started together, the scheduler is ready while the controller
	// manager still builds its controllers.
	if err := c.launchClients(ctx); err != nil {
		return err
	}
	return c.waitDefaultServiceAccount(ctx)
}

// prepareFolders makes the cell's folder (locked for this process), its
// private folder with the PKI and the admin kubeconfig, and the API
// server's proxy port the kubeconfig names.
func (c *Cluster) prepareFolders() error {
	// A cell restarted within one output folder starts from empty storage;
	// its logs keep accumulating.
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("creating cell dir: %w", err)
	}
	unlock, err := lockCellDir(c.dir)
	if err != nil {
		return err
	}
	c.unlockDir = unlock
	// MkdirTemp makes the folder 0700: the admin token, the CA key and the
	// etcd data (which holds every Secret) are readable by this user only,
	// and stop removes them with the cluster.
	private, err := os.MkdirTemp(c.opts.StateDir, "draconform-"+c.cell+"-")
	if err != nil {
		return fmt.Errorf("creating the cell's private folder: %w", err)
	}
	c.private = private
	pki, err := writePKI(filepath.Join(private, "pki"))
	if err != nil {
		return err
	}
	c.pki = pki
	if c.proxy, err = newAPIProxy(); err != nil {
		return err
	}
	c.apiPort = c.proxy.port()
	c.kubeconfig = filepath.Join(private, "kubeconfig")
	return writeKubeconfig(c.kubeconfig, apiserverURL(c.apiPort), pki.CAPEM, pki.AdminToken)
}

// launchEtcd starts etcd on free ports, again on new ones where another
// process took them first.
func (c *Cluster) launchEtcd(ctx context.Context) error {
	return retryPortTaken(c, string(Etcd), func() error {
		ports, err := localproc.FreePorts(2)
		if err != nil {
			return err
		}
		etcdClient, etcdPeer := ports[0], ports[1]
		// A try that lost its port may have begun the data folder with
		// that port in its member's URLs.
		if err := os.RemoveAll(filepath.Join(c.private, "etcd")); err != nil {
			return fmt.Errorf("clearing etcd's data folder: %w", err)
		}
		c.etcdURL = etcdClientURL(etcdClient)
		etcdArgv := etcdArgs(filepath.Join(c.private, "etcd"), c.pki, etcdClient, etcdPeer)
		pr, err := etcdProbe(c.etcdURL+"/health", c.pki)
		if err != nil {
			return err
		}
		return c.launch(ctx, Etcd, etcdArgv, pr, 30*time.Second)
	})
}

// waitDefaultServiceAccount waits until the controller manager has created
// default/default: until then the ServiceAccount admission plugin rejects
// every pod, which would fail a case for a reason that is not its own.
func (c *Cluster) waitDefaultServiceAccount(ctx context.Context) error {
	began := time.Now()
	pr, err := localproc.CAProbe(apiserverURL(c.apiPort)+"/api/v1/namespaces/default/serviceaccounts/default", c.pki.CAPEM, c.pki.AdminToken)
	if err != nil {
		return err
	}
	if err := localproc.WaitHealthy(ctx, c.procs[cluster.ControllerManager], pr, 60*time.Second); err != nil {
		return fmt.Errorf("waiting for the default service account: %w", err)
	}
	c.log.Printf("local: default service account after %.1fs (cell %s)", time.Since(began).Seconds(), c.cell)
	return nil
}

// launchClients starts the scheduler and the controller manager side by
// side and waits for both. Caller holds c.mu.
func (c *Cluster) launchClients(ctx context.Context) error {
	comps := []cluster.Component{cluster.Scheduler, cluster.ControllerManager}
	errs := make([]error, len(comps))
	var wg sync.WaitGroup
	for i, comp := range comps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.launchComponent(ctx, comp)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// launchComponent renders the command line of comp from the current gates
// and starts it, on new ports if another process took the ones it was
// given. Caller holds c.mu.
func (c *Cluster) launchComponent(ctx context.Context, comp cluster.Component) error {
	return retryPortTaken(c, string(comp), func() error { return c.launchComponentOnce(ctx, comp) })
}

// portAttempts bounds the starts of a component whose port another process
// took between freePorts and its bind: cells start side by side, each
// asking the kernel for free ports.
const portAttempts = 3

// retryPortTaken runs start again, up to portAttempts times, while it fails
// because a port was taken.
func retryPortTaken(c *Cluster, what string, start func() error) error {
	for attempt := 1; ; attempt++ {
		err := start()
		if err == nil || attempt == portAttempts || !portTaken(err) {
			return err
		}
		c.log.Printf("local: %s lost its port to another process before binding it (cell %s); starting it again on a new one", what, c.cell)
	}
}

// portTaken says whether a start failed because its port was in use: the
// component's log tail, which the error carries, says so.
func portTaken(err error) bool {
	return strings.Contains(err.Error(), "address already in use")
}

func (c *Cluster) launchComponentOnce(ctx context.Context, comp cluster.Component) error {
	gates := c.runGates(comp)
	switch comp {
	case cluster.APIServer:
		return c.launchAPIServer(ctx, gates)
	case cluster.Scheduler:
		return c.launchScheduler(ctx, gates)
	case cluster.ControllerManager:
		ports, err := localproc.FreePorts(1)
		if err != nil {
			return err
		}
		// Plain /healthz passes while the controllers are still being built
		// (~5 s, one token request each). Per-controller checks appear only
		// once all are built, right before they run, so wait for the ones the
		// suite depends on. ?verbose keeps the path inside the always-allowed
		// /healthz, since the manager has no delegated authorization.
		pr := localproc.InsecureProbe(fmt.Sprintf("https://127.0.0.1:%d/healthz?verbose=1", ports[0]))
		pr.WantBody = []string{"[+]resourceclaim-controller ok", "[+]garbage-collector-controller ok", "[+]serviceaccount-controller ok"}
		return c.launch(ctx, comp, controllerManagerArgs(c.kubeconfig, c.pki, ports[0], gates), pr, 90*time.Second)
	default:
		return fmt.Errorf("unknown component %q", comp)
	}
}

// launchAPIServer starts kube-apiserver on a free port and points the
// cell's proxy, which the kubeconfig names, at it.
func (c *Cluster) launchAPIServer(ctx context.Context, gates cluster.Gates) error {
	ports, err := localproc.FreePorts(1)
	if err != nil {
		return err
	}
	args := apiserverArgs(apiserverParams{
		pki:              c.pki,
		certDir:          filepath.Join(c.private, "pki"),
		etcdURL:          c.etcdURL,
		port:             ports[0],
		gates:            gates,
		storageMediaType: c.opts.StorageMediaType,
		extra:            c.opts.APIServerExtraFlags,
	})
	// /readyz rather than /healthz: it also waits for the bootstrap
	// RBAC roles and priority levels the other components rely on.
	pr, err := localproc.CAProbe(apiserverURL(ports[0])+"/readyz", c.pki.CAPEM, c.pki.AdminToken)
	if err != nil {
		return err
	}
	if err := c.launch(ctx, cluster.APIServer, args, pr, 90*time.Second); err != nil {
		return err
	}
	c.proxy.setBackend(ports[0])
	return nil
}

// launchScheduler writes kube-scheduler's config and starts it on a free
// port.
func (c *Cluster) launchScheduler(ctx context.Context, gates cluster.Gates) error {
	// In the private folder, which no other cluster can share: a
	// scheduler started from another cluster's config would serve that
	// cluster beside its own scheduler.
	cfgPath := filepath.Join(c.private, "kube-scheduler-config.yaml")
	cfg, err := renderSchedulerConfig(c.kubeconfig, c.opts.SchedulerContentType)
	if err != nil {
		return err
	}
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		return fmt.Errorf("writing scheduler config: %w", err)
	}
	ports, err := localproc.FreePorts(1)
	if err != nil {
		return err
	}
	// The scheduler leads only after its informers and event handlers
	// synced, so a pod created right after this returns is scheduled
	// without delay; and one that waits for another's lease is not
	// taken for ready.
	pr := localproc.InsecureProbe(fmt.Sprintf("https://127.0.0.1:%d/metrics", ports[0]))
	pr.WantBody = []string{schedulerLeads}
	c.schedPort = ports[0]
	return c.launch(ctx, cluster.Scheduler, schedulerArgs(cfgPath, ports[0], gates), pr, 60*time.Second)
}

// runGates are the gates comp runs with: the provider's base gates, then
// the cell's (or a restart's) over them.
func (c *Cluster) runGates(comp cluster.Component) cluster.Gates {
	base := c.opts.BaseGates[comp]
	if len(base) == 0 {
		return c.gates[comp]
	}
	out := maps.Clone(base)
	maps.Copy(out, c.gates[comp])
	return out
}

// launch starts one binary and waits for its probe. On failure the process
// is stopped again. Caller holds c.mu.
func (c *Cluster) launch(ctx context.Context, comp cluster.Component, args []string, pr localproc.Probe, timeout time.Duration) error {
	began := time.Now()
	bin := c.opts.binary(comp, c.released)
	p, err := localproc.Start(c.trust, string(comp), bin, args, c.logPath(comp), c.runGates(comp).Flag())
	if err != nil {
		return err
	}
	c.procMu.Lock()
	c.procs[comp] = p
	c.started = append(c.started, p.PID)
	c.procMu.Unlock()
	if err := localproc.WaitHealthy(ctx, p, pr, timeout); err != nil {
		p.Stop(stopGrace(comp))
		return err
	}
	c.log.Printf("local: %s ready in %.1fs (cell %s)", comp, time.Since(began).Seconds(), c.cell)
	return nil
}

// Restart stops comp and starts it again with gates, on the same storage,
// certificates and API server port, and returns once it is healthy. Gates
// reports the new gates only after a successful restart; after a failed
// one the component runs with its previous gates again.
func (c *Cluster) Restart(ctx context.Context, comp cluster.Component, gates cluster.Gates) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restart(ctx, comp, gates, c.released[comp])
}

// RestartBinary implements cluster.BinaryRestarter: Restart, from the
// released binary or the implementation's. The storage stays, so a
// downgraded API server serves what the implementation stored.
func (c *Cluster) RestartBinary(ctx context.Context, comp cluster.Component, gates cluster.Gates, released bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if released && c.opts.ReleasedBinDir == "" {
		return fmt.Errorf("local: cannot run %s from a released binary in cell %s: this provider has none: %w", comp, c.cell, cluster.ErrUnsupported)
	}
	return c.restart(ctx, comp, gates, released)
}

// RunsReleased implements cluster.BinaryRestarter.
func (c *Cluster) RunsReleased(comp cluster.Component) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.released[comp]
}

// restart is Restart from the binary released says. Caller holds c.mu.
func (c *Cluster) restart(ctx context.Context, comp cluster.Component, gates cluster.Gates, released bool) error {
	if _, ok := c.procs[comp]; !ok || comp == Etcd {
		return fmt.Errorf("local: cannot restart %q in cell %s: not a running control-plane component", comp, c.cell)
	}
	began := time.Now()
	prev := c.procs[comp]
	if comp != cluster.APIServer {
		// Two schedulers or controller managers would both act.
		prev.Stop(stopGrace(comp))
	}
	old, had := c.gates[comp]
	wasReleased := c.released[comp]
	c.gates[comp] = maps.Clone(gates)
	c.setReleased(comp, released)
	if err := c.launchComponent(ctx, comp); err != nil {
		if had {
			c.gates[comp] = old
		} else {
			delete(c.gates, comp)
		}
		c.setReleased(comp, wasReleased)
		err = fmt.Errorf("local: restarting %s in cell %s with gates %q from %s: %w", comp, c.cell, gates.Flag(), c.opts.binary(comp, map[cluster.Component]bool{comp: released}), err)
		if comp == cluster.APIServer {
			// The old API server still serves, and the proxy still
			// points at it: the cell keeps its gates.
			c.procs[comp] = prev
			return err
		}
		// The old one was stopped: start it again with its gates, or the
		// cell's later cases find no scheduler (a binary that refuses the
		// new gates leaves nothing running).
		if rerr := c.launchComponent(ctx, comp); rerr != nil {
			return fmt.Errorf("%w (starting it again with its previous gates %q failed too: %v)", err, c.gates[comp].Flag(), rerr)
		}
		return err
	}
	if comp == cluster.APIServer {
		// The proxy sends new connections to the new API server already;
		// stopping the old one cuts the rest, whose clients reconnect.
		// Its state is in etcd, so the kill loses nothing.
		prev.Stop(0)
	}
	c.log.Printf("local: %s restarted in %.1fs with gates %q from %s (cell %s)", comp, time.Since(began).Seconds(), gates.Flag(), c.opts.binary(comp, c.released), c.cell)
	return nil
}

// Outage implements cluster.Outager: comp stops, stays away for down, and
// starts again with the gates and binary it had. Unlike Restart, nothing
// serves in between: for the API server, the proxy's backend is gone, so
// every client is refused until the new process serves.
func (c *Cluster) Outage(ctx context.Context, comp cluster.Component, down time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev, ok := c.procs[comp]
	if !ok || comp == Etcd {
		return fmt.Errorf("local: cannot take %q away in cell %s: not a running control-plane component", comp, c.cell)
	}
	began := time.Now()
	prev.Stop(stopGrace(comp))
	c.log.Printf("local: %s stopped for an outage of %s (cell %s)", comp, down, c.cell)
	select {
	case <-ctx.Done():
	case <-time.After(down):
	}
	// Back even when the case was interrupted: later cases of the cell,
	// and its teardown, need the component.
	if err := c.launchComponent(context.WithoutCancel(ctx), comp); err != nil {
		return fmt.Errorf("local: starting %s again after an outage in cell %s: %w", comp, c.cell, err)
	}
	c.log.Printf("local: %s serves again %.1fs after it stopped (cell %s)", comp, time.Since(began).Seconds(), c.cell)
	if comp == cluster.APIServer {
		if err := c.restartIfLeaseLost(context.WithoutCancel(ctx)); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// leaseGiveUp is how long after the API server is back a scheduler that
// could not renew its leader lease meanwhile may still take to exit: its
// renew deadline and one retry (KubeSchedulerConfiguration's defaults,
// 10 s and 2 s). One still running then has renewed.
const leaseGiveUp = 12 * time.Second

// restartIfLeaseLost does what the kubelet does for a static pod on any
// control plane: a scheduler that lost its leader lease while the API
// server was away exits, and is started again. Caller holds c.mu.
func (c *Cluster) restartIfLeaseLost(ctx context.Context) error {
	p, ok := c.procs[cluster.Scheduler]
	if !ok {
		return nil
	}
	select {
	case <-p.Done():
	case <-time.After(leaseGiveUp):
		return nil
	}
	c.log.Printf("local: kube-scheduler exited (%v) after the API server outage, as one that lost its leader lease does; starting it again, as a kubelet would (cell %s)", p.ExitErr(), c.cell)
	if err := c.launchComponent(ctx, cluster.Scheduler); err != nil {
		return fmt.Errorf("local: starting kube-scheduler again after it lost its lease in the outage, cell %s: %w", c.cell, err)
	}
	return nil
}

// setReleased records which binary comp runs from; the cell's map may be
// shared with its start, so it is copied before it changes. Caller holds c.mu.
func (c *Cluster) setReleased(comp cluster.Component, released bool) {
	if c.released[comp] == released {
		return
	}
	next := maps.Clone(c.released)
	if next == nil {
		next = map[cluster.Component]bool{}
	}
	if released {
		next[comp] = true
	} else {
		delete(next, comp)
	}
	c.released = next
}

// stop ends every process: the clients first, side by side, so that none of
// them logs a storm of connection errors against a gone API server; then the
// API server and etcd are killed, not asked. Their state goes with the
// private folder, and their graceful stop (the API server's alone took
// 1.4 s, measured) would only hold the cell's place in the run longer.
func (c *Cluster) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The node first, while the API server still answers its last calls.
	if c.node != nil {
		if err := c.node.Stop(); err != nil {
			c.log.Printf("local: %v", err)
		}
		c.started = append(c.started, c.node.Started()...)
		c.node = nil
	}
	var clients sync.WaitGroup
	for _, comp := range []cluster.Component{cluster.Scheduler, cluster.ControllerManager} {
		if p := c.procs[comp]; p != nil {
			clients.Go(func() { p.Stop(stopGrace(comp)) })
		}
	}
	clients.Wait()
	for _, comp := range []cluster.Component{cluster.APIServer, Etcd} {
		if p := c.procs[comp]; p != nil {
			p.Kill()
		}
	}
	clear(c.procs)
	if c.proxy != nil {
		c.proxy.close()
	}
	if c.private != "" {
		if err := os.RemoveAll(c.private); err != nil {
			c.log.Printf("local: removing the private folder of cell %s: %v", c.cell, err)
		}
		c.private = ""
	}
	if c.unlockDir != nil {
		c.unlockDir()
		c.unlockDir = nil
	}
}

// pids lists every process this cluster ever started, stopped or not.
func (c *Cluster) pids() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.started...)
}

// stopGrace is how long a component may take over SIGTERM when it is
// restarted or fails to start. The API server gets less: it stops listening
// at once but then waits for the scheduler's and controller manager's
// watches to end, which they never do by themselves, so waiting longer only
// delays every restart; its state is in etcd, so the kill loses nothing.
func stopGrace(comp cluster.Component) time.Duration {
	switch comp {
	case cluster.APIServer:
		return 3 * time.Second
	default:
		return 5 * time.Second
	}
}

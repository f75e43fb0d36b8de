// Package localnode is the embedded providers' kubelet node: containerd
// and a kubelet as plain processes beside one cell's control plane, with
// the test driver on it, so that pods really run. The control plane
// (tools/cluster/localcp) adds one to a cell on demand; what it needs of
// the control plane is a ControlPlane.
package localnode

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/drivers/deploy"
	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localproc"
	"github.com/draconform/draconform/tools/cluster/testdriver"
	"github.com/draconform/draconform/tools/internal/bintrust"
)

// bridgePrefix starts the name of every node's CNI bridge; an interface
// name has at most 15 bytes.
const bridgePrefix = "dcbr"

// PauseImage is the sandbox image the node's containerd is told to use; it
// is imported from an archive, never pulled.
const PauseImage = "draconform.dev/pause:dev"

// ControlPlane is what a node joins: its API server's port, admin
// credentials (to wait for the node and deploy the test driver there), and
// the cluster's CA, which the kubelet trusts and which issues its
// certificates.
type ControlPlane struct {
	APIPort int
	Admin   *rest.Config
	// CACert is the CA certificate's path; CAPEM its contents.
	CACert string
	CAPEM  []byte
	// Certificate is the template of a client certificate for cn in orgs,
	// which Issue signs with the CA into certPath and keyPath.
	Certificate func(cn string, orgs ...string) *x509.Certificate
	Issue       func(tmpl *x509.Certificate, certPath, keyPath string) error
}

// Node is a kubelet with containerd beside one cell's control plane, as
// hack/local-up-cluster.sh runs them: plain processes on this machine, with
// the test driver deployed to it as a DaemonSet, so pods really start.
type Node struct {
	name       string // the Node object's name
	id         string // names this node's host resources
	layout     nodeLayout
	logDir     string
	cgroupRoot string // relative to each hierarchy's mount, e.g. draconform-1a2b3c
	bridge     string
	log        *k8sbuild.SyncWriter
	// trust checks each binary before the node runs it.
	trust *bintrust.Checker

	containerd *localproc.Process
	kubelet    *localproc.Process
	started    []int
	// lock holds the node's folder from its creation to its removal; nil
	// until the folder is this node's, and stop removes nothing before.
	lock *os.File
}

// network names the node's CNI network; libcni keeps its cache in
// /var/lib/cni/results under this name, whatever containerd is told.
func (n *Node) network() string { return "draconform-" + n.id }

// LogPath is where component c of the node (the kubelet, containerd) logs.
func (n *Node) LogPath(c cluster.Component) string {
	return filepath.Join(n.logDir, string(c)+".log")
}

// runcLogEnv names, for tools/cmd/draconform-runc, the file where it says
// what it dropped from a container's documents, or why it refused one.
const runcLogEnv = "DRACONFORM_RUNC_LOG"

// runcLogPath is that file, beside the node's other logs.
func (n *Node) runcLogPath() string { return filepath.Join(n.logDir, "draconform-runc.log") }

// New is the node of cell, logging into logDir beside the control plane's
// logs, checking each binary with trust before it runs one (nil: a
// Checker that remembers no digest); nothing runs until Start.
func New(cell, logDir string, log *k8sbuild.SyncWriter, trust *bintrust.Checker) *Node {
	id := newNodeID()
	return &Node{
		name:       "draconform-" + cell,
		id:         id,
		layout:     nodeLayout{dir: filepath.Join(StateRoot, id)},
		logDir:     logDir,
		cgroupRoot: "draconform-" + id,
		bridge:     bridgeName(id),
		log:        log,
		trust:      trust,
	}
}

// Started lists every process the node started, stopped or not.
func (n *Node) Started() []int { return n.started }

// Start brings the node up and returns once it is Ready, schedulable, and
// the test driver has published its devices. On failure the caller stops
// it, which removes whatever it got to.
func (n *Node) Start(ctx context.Context, bins Binaries, cp ControlPlane) error {
	began := time.Now()
	addr, err := n.address()
	if err != nil {
		return err
	}
	l := n.layout
	if n.lock, err = claimNodeDir(l.dir); err != nil {
		return err
	}
	for _, d := range []string{l.bin(), l.cdi(), l.cniConf(), l.cniData(), l.kubeletRoot(), l.pki(), l.podLogs(), filepath.Dir(l.utab())} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	if err := linkBinaries(n.trust, bins, l.bin()); err != nil {
		return err
	}
	if err := hostKernel.record(); err != nil {
		return err
	}
	if err := makeBridge(n.bridge, addr); err != nil {
		return err
	}
	n.log.Printf("local: node %s: state in %s, cgroups under /%s, kubelet on %s of bridge %s (cell dir %s)", n.name, l.dir, n.cgroupRoot, addr.IP, n.bridge, n.logDir)

	if err := n.startContainerd(ctx, bins); err != nil {
		return err
	}
	for _, archive := range []string{bins.PauseArchive, bins.DriverArchive} {
		if err := n.ctr(ctx, "images", "import", archive); err != nil {
			return fmt.Errorf("importing %s into the node's containerd: %w", archive, err)
		}
	}
	if err := makeCgroupRoot(n.cgroupRoot); err != nil {
		return err
	}
	if err := n.startKubelet(ctx, bins, cp, addr.IP); err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cp.Admin)
	if err != nil {
		return fmt.Errorf("client for the node: %w", err)
	}
	if err := n.waitReady(ctx, cs, 90*time.Second); err != nil {
		return err
	}
	n.log.Printf("local: node %s Ready in %.1fs", n.name, time.Since(began).Seconds())
	driverBegan := time.Now()
	if err := n.installDriver(ctx, cp.Admin, cs, cp.APIPort); err != nil {
		return err
	}
	n.log.Printf("local: test driver on node %s publishes its devices after %.1fs (node up in %.1fs)", n.name, time.Since(driverBegan).Seconds(), time.Since(began).Seconds())
	return nil
}

// linkBinaries gathers what containerd runs into one directory: the shim
// and CNI plugins are found there, and draconform-runc finds the real runc
// beside its own (resolved) path, so it is copied, not linked. Each is
// checked first (trust), since containerd runs them as root and checks
// nothing, and linked to the very file checked.
func linkBinaries(trust *bintrust.Checker, b Binaries, dir string) error {
	for _, name := range RuntimeBinaries {
		real, err := trust.Check(filepath.Join(b.RuntimeDir, name))
		if err != nil {
			return fmt.Errorf("the node's container runtime: %w", err)
		}
		if err := os.Symlink(real, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("linking %s into %s: %w", name, dir, err)
		}
	}
	runc, err := trust.Check(filepath.Join(b.ToolsDir, "draconform-runc"))
	if err != nil {
		return err
	}
	data, err := os.ReadFile(runc)
	if err != nil {
		return fmt.Errorf("reading draconform-runc: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "draconform-runc"), data, 0o755); err != nil {
		return fmt.Errorf("copying draconform-runc into %s: %w", dir, err)
	}
	return nil
}

func (n *Node) startContainerd(ctx context.Context, bins Binaries) error {
	l := n.layout
	snapshotter := "overlayfs"
	if !filesystemSupported("overlay") {
		snapshotter = "native"
	}
	if err := os.WriteFile(l.containerdConfig(), []byte(containerdConfig(l, PauseImage, snapshotter)), 0o644); err != nil {
		return fmt.Errorf("writing containerd's config: %w", err)
	}
	conf, err := cniConfig(l, n.network(), n.bridge, podSubnet(n.id))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(l.cniConf(), "10-draconform.conflist"), conf, 0o644); err != nil {
		return fmt.Errorf("writing the CNI config: %w", err)
	}
	// The shims and draconform-runc inherit containerd's environment: the
	// wrapper names what it drops from a container's documents in a log
	// of the cell's.
	env := append(os.Environ(), "PATH="+l.bin()+":"+os.Getenv("PATH"), runcLogEnv+"="+n.runcLogPath())
	p, err := localproc.StartEnv(n.trust, string(cluster.Containerd), filepath.Join(l.bin(), "containerd"), []string{"--config", l.containerdConfig()}, n.LogPath(cluster.Containerd), "", env)
	if err != nil {
		return err
	}
	n.containerd = p
	n.started = append(n.started, p.PID)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if p.Exited() {
			return false, p.DiedError()
		}
		// The socket appears before the CRI plugin is ready; ctr version
		// answers once the gRPC server serves.
		_, err := os.Stat(l.socket())
		return err == nil && n.ctr(ctx, "version") == nil, nil
	})
	switch {
	case err == nil:
		// containerd serves even when its CRI plugin failed to load, and
		// the kubelet would then fail with "unknown service
		// runtime.v1.RuntimeService", which hides the reason.
		return criPluginError(p.LogPath)
	case wait.Interrupted(err) && ctx.Err() == nil:
		return fmt.Errorf("containerd did not serve on %s within 30s; log %s, last lines:\n%s", l.socket(), p.LogPath, localproc.LogTail(p.LogPath, 30))
	}
	return err
}

// criPluginError reads containerd's log for a CRI plugin that failed to
// load, and says why, with the likeliest fix for the cause seen here.
func criPluginError(logPath string) error {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, "failed to load plugin") || !strings.Contains(line, "id=io.containerd.grpc.v1.cri") {
			continue
		}
		hint := ""
		if strings.Contains(line, "inotify") && strings.Contains(line, "too many open files") {
			hint = " (the machine's inotify instances are used up, fs.inotify.max_user_instances: other kubelets and containerds, or editors, hold them; stop some, or raise it with sysctl -w fs.inotify.max_user_instances=512, which draconform does not do for you)"
		}
		return fmt.Errorf("containerd started without its CRI plugin, so no kubelet can use it%s; log %s: %s", hint, logPath, strings.TrimSpace(line))
	}
	return nil
}

// ctr runs containerd's own client against the node's containerd, in the
// namespace the CRI plugin (and so the kubelet) uses.
func (n *Node) ctr(ctx context.Context, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	argv := append([]string{"--address", n.layout.socket(), "--namespace", "k8s.io"}, args...)
	cmd, err := n.trust.Command(ctx, filepath.Join(n.layout.bin(), "ctr"), argv...)
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("ctr %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (n *Node) startKubelet(ctx context.Context, bins Binaries, cp ControlPlane, ip net.IP) error {
	ports, err := localproc.FreePorts(2)
	if err != nil {
		return err
	}
	args, err := n.prepareKubelet(cp, ip, ports[0], ports[1])
	if err != nil {
		return err
	}
	proc, err := localproc.StartEnv(n.trust, string(cluster.Kubelet), bins.Kubelet, args, n.LogPath(cluster.Kubelet), "", kubeletEnv(n.layout, os.Environ()))
	if err != nil {
		return err
	}
	n.kubelet = proc
	n.started = append(n.started, proc.PID)
	return localproc.WaitHealthy(ctx, proc, localproc.PlainProbe(fmt.Sprintf("http://127.0.0.1:%d/healthz", ports[1])), 60*time.Second)
}

// prepareKubelet writes the kubelet's credentials and config and returns
// its command line: it serves on ip, which it reports as the node's, on
// port, and healthz on loopback's healthzPort. Its client identity is the
// node's own, system:node:<name> in system:nodes, which the API server's
// Node authorizer and NodeRestriction admission hold to this node.
func (n *Node) prepareKubelet(cp ControlPlane, ip net.IP, port, healthzPort int) ([]string, error) {
	l := n.layout
	nodeCert, nodeKey := filepath.Join(l.pki(), "node.crt"), filepath.Join(l.pki(), "node.key")
	if err := cp.Issue(cp.Certificate("system:node:"+n.name, "system:nodes"), nodeCert, nodeKey); err != nil {
		return nil, err
	}
	servingCert, servingKey := filepath.Join(l.pki(), "kubelet.crt"), filepath.Join(l.pki(), "kubelet.key")
	serving := cp.Certificate("system:node:"+n.name, "system:nodes")
	serving.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	serving.IPAddresses = []net.IP{ip}
	serving.DNSNames = []string{n.name}
	if err := cp.Issue(serving, servingCert, servingKey); err != nil {
		return nil, err
	}
	if err := writeNodeKubeconfig(l.kubeconfig(), fmt.Sprintf("https://127.0.0.1:%d", cp.APIPort), cp.CAPEM, nodeCert, nodeKey); err != nil {
		return nil, err
	}
	cfg, err := kubeletConfig(kubeletParams{layout: l, nodeIP: ip.String(), port: port, healthzPort: healthzPort,
		cgroupRoot: "/" + n.cgroupRoot, caFile: cp.CACert, certFile: servingCert, keyFile: servingKey})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(l.kubeletConfig(), cfg, 0o644); err != nil {
		return nil, fmt.Errorf("writing the kubelet config: %w", err)
	}
	return []string{
		"--config=" + l.kubeletConfig(),
		"--kubeconfig=" + l.kubeconfig(),
		"--root-dir=" + l.kubeletRoot(),
		"--cert-dir=" + l.pki(),
		"--hostname-override=" + n.name,
		"--node-ip=" + ip.String(),
		"--v=2",
	}, nil
}

// waitReady waits for the Node to be Ready, then lifts the not-ready taint
// the kubelet registers with: the node lifecycle controller that would lift
// it does not run here, since it would evict the pods of the suite's
// kubelet-less Node objects.
func (n *Node) waitReady(ctx context.Context, admin *kubernetes.Clientset, timeout time.Duration) error {
	last := "the node is not registered yet"
	err := cluster.Poll(ctx, timeout, 250*time.Millisecond, func(ctx context.Context) (bool, error) {
		if n.kubelet.Exited() {
			return false, n.kubelet.DiedError()
		}
		node, err := admin.CoreV1().Nodes().Get(ctx, n.name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if ready, why := nodeReadyCondition(node); !ready {
			last = why
			return false, nil
		}
		kept := node.Spec.Taints[:0]
		for _, t := range node.Spec.Taints {
			if t.Key != corev1.TaintNodeNotReady {
				kept = append(kept, t)
			}
		}
		if len(kept) == len(node.Spec.Taints) {
			return true, nil
		}
		node.Spec.Taints = kept
		if _, err := admin.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
			last = "removing the not-ready taint: " + err.Error()
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("node %s not Ready: %w; last: %s; kubelet log %s, last lines:\n%s", n.name, err, last, n.LogPath(cluster.Kubelet), localproc.LogTail(n.LogPath(cluster.Kubelet), 30))
	}
	return nil
}

func nodeReadyCondition(node *corev1.Node) (bool, string) {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue, fmt.Sprintf("Ready=%s %s: %s", c.Status, c.Reason, c.Message)
		}
	}
	return false, "no Ready condition yet"
}

// installDriver deploys the test driver to this node alone, with the
// manifests kind clusters get, rendered for this node's directories.
func (n *Node) installDriver(ctx context.Context, admin *rest.Config, cs kubernetes.Interface, apiPort int) error {
	data, err := deploy.Render(n.driverOptions(apiPort))
	if err != nil {
		return fmt.Errorf("rendering the test driver's manifests: %w", err)
	}
	applied, err := testdriver.Apply(ctx, admin, data)
	if err != nil {
		return fmt.Errorf("deploying the test driver: %w", err)
	}
	n.log.Printf("local: node %s: applied %s", n.name, strings.Join(applied, ", "))
	return testdriver.Wait(ctx, cs, n.name, 2*time.Minute)
}

// driverOptions place the test driver on this node: the kubelet's root
// (plugin sockets) and the CDI folder are all of the node it mounts, so it
// writes to the API server as its own service account, never with the
// node's credentials, which lie beside them (pki, kubelet.kubeconfig).
func (n *Node) driverOptions(apiPort int) deploy.Options {
	return deploy.Options{
		KubeletDir:   n.layout.kubeletRoot(),
		CDIDir:       n.layout.cdi(),
		NodeSelector: map[string]string{corev1.LabelHostname: n.name},
		APIServer:    net.JoinHostPort("127.0.0.1", strconv.Itoa(apiPort)),
	}
}

// Stop removes the node and everything it made on this machine. It goes
// on past failures, so one leftover does not keep the others, and returns
// what it could not remove.
func (n *Node) Stop() error {
	if n.lock == nil {
		// The folder, and all named after the id, may be another's.
		return nil
	}
	defer func() {
		n.lock.Close()
		n.lock = nil
	}()
	var errs []error
	n.kubelet.Stop(5 * time.Second)
	var containers []string
	if n.containerd != nil && !n.containerd.Exited() {
		// Deleting the tasks through containerd lets each shim exit and
		// remove its socket, which a kill would leave behind.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		containers = n.list(ctx, "containers")
		for _, id := range n.list(ctx, "tasks") {
			_ = n.ctr(ctx, "tasks", "delete", "--force", id)
		}
		cancel()
	}
	if left := killCgroup(n.cgroupRoot, 10*time.Second); len(left) > 0 {
		errs = append(errs, fmt.Errorf("processes left in the node's cgroups: %v", left))
	}
	for _, pid := range processesWithArg(n.layout.socket()) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	n.containerd.Stop(10 * time.Second)
	if err := unmountUnder(n.layout.dir); err != nil {
		errs = append(errs, err)
	}
	removeLogLinks(n.layout.dir)
	removeCNICache(n.network(), containers)
	if err := removeCgroups(n.cgroupRoot, 10*time.Second); err != nil {
		errs = append(errs, err)
	}
	if err := deleteLink(n.bridge); err != nil {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(n.layout.dir); err != nil {
		errs = append(errs, fmt.Errorf("removing %s: %w", n.layout.dir, err))
	}
	// The last node gone, the kernel settings its kubelet wrote go back,
	// and the folders outside its own that the nodes made go.
	restored, err := hostKernel.restore()
	if err != nil {
		errs = append(errs, fmt.Errorf("restoring the host's kernel settings: %w", err))
	}
	if len(restored) > 0 && n.log != nil {
		n.log.Printf("local: node %s: the host as it was before the first node: %s", n.name, strings.Join(restored, " "))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("node %s: %w", n.name, err)
	}
	return nil
}

// list returns the ids of the node's containerd's containers or tasks;
// nothing if it cannot tell, which leaves the work to the kills after it.
func (n *Node) list(ctx context.Context, what string) []string {
	argv := []string{"--address", n.layout.socket(), "--namespace", "k8s.io", what, "list", "--quiet"}
	cmd, err := n.trust.Command(ctx, filepath.Join(n.layout.bin(), "ctr"), argv...)
	if err != nil {
		return nil
	}
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// leftovers lists what of the node is still on the machine; empty after a
// clean stop. The test of the clean stop asks it.
func (n *Node) leftovers() []string {
	var out []string
	for _, pid := range n.started {
		if pidAlive(pid) {
			out = append(out, fmt.Sprintf("process %d", pid))
		}
	}
	for _, pid := range processesWithArg(n.layout.socket()) {
		out = append(out, fmt.Sprintf("shim process %d", pid))
	}
	for _, pid := range cgroupPIDs(n.cgroupRoot) {
		out = append(out, fmt.Sprintf("process %d in the node's cgroups", pid))
	}
	if mounts, _ := mountsUnder(n.layout.dir); len(mounts) > 0 {
		out = append(out, "mounts "+strings.Join(mounts, ", "))
	}
	if dirs := cgroupDirs(n.cgroupRoot); len(dirs) > 0 {
		out = append(out, "cgroups "+strings.Join(dirs, ", "))
	}
	if cached := cniCacheEntries(n.network()); len(cached) > 0 {
		out = append(out, "CNI cache "+strings.Join(cached, ", "))
	}
	if linkExists(n.bridge) {
		out = append(out, "network interface "+n.bridge)
	}
	if _, err := os.Stat(n.layout.dir); err == nil {
		out = append(out, "directory "+n.layout.dir)
	}
	return out
}

package bench

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/draconform/draconform/tools/cluster"
)

// StartOptions are what MeasureStart starts: a cell through Provider, and
// the floor from BinDir's etcd and kube-apiserver, the binaries the
// provider runs.
type StartOptions struct {
	Provider cluster.Provider
	Cell     string
	Gates    cluster.GateState
	// Lines times the provider's log, which names each component's
	// readiness: the cell start's parts are read off it.
	Lines  *LineTimes
	BinDir string
	Dir    string
	Pairs  int
	Log    io.Writer
}

// startGoal is the start ratio aimed for (issue 42).
const startGoal = 1.3

// probeEvery is how often the floor's probes ask, as the embedded
// provider's do (localcp.waitHealthy): the floor gains nothing on them.
const probeEvery = 100 * time.Millisecond

// MeasureStart starts the cell's cluster and, beside it in turn, a bare etcd
// and kube-apiserver (the floor), Pairs times, alternating which goes
// first so that neither always meets a warmer page cache, and stops each
// before the next.
func MeasureStart(ctx context.Context, o StartOptions) (*SpeedRatio, error) {
	r := &SpeedRatio{Goal: startGoal, Note: "a cell's cluster start (" + o.Provider.Name() + "/" + o.Cell + ": etcd, kube-apiserver, kube-scheduler and kube-controller-manager to ready, the default ServiceAccount made, as the runner starts it, without a node) against etcd and kube-apiserver alone from the same binaries to /readyz (no TLS to etcd, no token file, no feature gates), in turns"}
	var cellParts, floorParts []map[string]float64
	for i := range o.Pairs {
		var cell, floor map[string]float64
		var cellSecs, floorSecs float64
		var err error
		for k := range 2 {
			if (i+k)%2 == 0 {
				cellSecs, cell, err = cellStart(ctx, o)
			} else {
				floorSecs, floor, err = BareStart(ctx, o.BinDir, filepath.Join(o.Dir, fmt.Sprintf("floor-%d", i+1)))
			}
			if err != nil {
				return nil, err
			}
		}
		r.Samples = append(r.Samples, Pair{Num: cellSecs, Den: floorSecs})
		cellParts, floorParts = append(cellParts, cell), append(floorParts, floor)
		if o.Log != nil {
			fmt.Fprintf(o.Log, "bench: start %d of %d: cell %.1fs, bare API server %.1fs (%.2f×)\n", i+1, o.Pairs, cellSecs, floorSecs, Pair{cellSecs, floorSecs}.Of())
		}
	}
	r.Parts = medianParts(cellStartParts, cellParts)
	r.Floor = medianParts(floorStartParts, floorParts)
	return r, nil
}

// The parts of a cell's start, as the provider logs them, and of the floor's.
var (
	cellStartParts  = []string{"etcd", "kube-apiserver", "kube-scheduler and kube-controller-manager, side by side", "the default ServiceAccount", partRest}
	floorStartParts = []string{"etcd", "kube-apiserver", partRest}
)

// cellStart starts the cell, reads its parts off the provider's log and
// stops it.
func cellStart(ctx context.Context, o StartOptions) (float64, map[string]float64, error) {
	began := time.Now()
	c, err := cluster.StartCell(ctx, o.Provider, o.Cell, o.Gates, nil)
	secs := time.Since(began).Seconds()
	if err != nil {
		return 0, nil, fmt.Errorf("starting %s/%s: %w", o.Provider.Name(), o.Cell, err)
	}
	parts := CellStartParts(o.Lines.Since(began), secs)
	if err := o.Provider.Stop(ctx, c); err != nil {
		return 0, nil, fmt.Errorf("stopping %s: %w", c.Name(), err)
	}
	return secs, parts, nil
}

var (
	readyLine = regexp.MustCompile(`: (etcd|kube-apiserver|kube-scheduler|kube-controller-manager) ready in ([0-9.]+)s`)
	saLine    = regexp.MustCompile(`: default service account after ([0-9.]+)s`)
)

// CellStartParts reads a cell start's parts from the provider's log lines
// ("<provider>: <component> ready in 1.2s", "default service account
// after 0.4s"); the scheduler and the controller manager start side by
// side, so theirs is the slower. The rest is total less the parts.
func CellStartParts(lines []TimedLine, total float64) map[string]float64 {
	ready := map[string]float64{}
	parts := map[string]float64{}
	for _, l := range lines {
		if m := readyLine.FindStringSubmatch(l.Text); m != nil {
			ready[m[1]], _ = strconv.ParseFloat(m[2], 64)
		}
		if m := saLine.FindStringSubmatch(l.Text); m != nil {
			parts["the default ServiceAccount"], _ = strconv.ParseFloat(m[1], 64)
		}
	}
	parts["etcd"], parts["kube-apiserver"] = ready["etcd"], ready["kube-apiserver"]
	parts[cellStartParts[2]] = max(ready["kube-scheduler"], ready["kube-controller-manager"])
	rest := total
	for _, k := range cellStartParts[:4] {
		rest -= parts[k]
	}
	parts[partRest] = max(rest, 0)
	return parts
}

// Since are the lines written from t on, timed from t.
func (l *LineTimes) Since(t time.Time) []TimedLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	from := t.Sub(l.began)
	var out []TimedLine
	for _, ln := range l.Lines {
		if ln.At >= from {
			out = append(out, TimedLine{At: ln.At - from, Text: ln.Text})
		}
	}
	return out
}

// BareStart starts etcd and kube-apiserver from binDir alone, in dir, until
// kube-apiserver's /readyz answers, then stops both: the floor of a
// cluster start on this machine.
func BareStart(ctx context.Context, binDir, dir string) (float64, map[string]float64, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, nil, err
	}
	defer os.RemoveAll(filepath.Join(dir, "etcd"))
	began := time.Now()
	key, err := writeSAKey(filepath.Join(dir, "sa.key"))
	if err != nil {
		return 0, nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return 0, nil, err
	}
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	etcdAt := time.Now()
	etcd, err := startBare(filepath.Join(binDir, "etcd"), filepath.Join(dir, "etcd.log"), "--name=default", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL, "--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=default="+peer, "--unsafe-no-fsync=true", "--log-level=warn")
	if err != nil {
		return 0, nil, err
	}
	defer stopBare(etcd)
	if err := waitOK(ctx, etcd, etcdURL+"/health", 30*time.Second); err != nil {
		return 0, nil, fmt.Errorf("bare etcd: %w (log %s)", err, filepath.Join(dir, "etcd.log"))
	}
	parts := map[string]float64{"etcd": time.Since(etcdAt).Seconds()}
	apiAt := time.Now()
	api, err := startBare(filepath.Join(binDir, "kube-apiserver"), filepath.Join(dir, "kube-apiserver.log"), "--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[2]), "--cert-dir="+filepath.Join(dir, "certs"),
		"--authorization-mode=Node,RBAC", "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+key, "--service-account-signing-key-file="+key, "--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none", "--runtime-config=resource.k8s.io/v1=true,resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true")
	if err != nil {
		return 0, nil, err
	}
	defer stopBare(api)
	if err := waitOK(ctx, api, fmt.Sprintf("https://127.0.0.1:%d/readyz", ports[2]), 90*time.Second); err != nil {
		return 0, nil, fmt.Errorf("bare kube-apiserver: %w (log %s)", err, filepath.Join(dir, "kube-apiserver.log"))
	}
	total := time.Since(began).Seconds()
	parts["kube-apiserver"] = time.Since(apiAt).Seconds()
	parts[partRest] = max(total-parts["etcd"]-parts["kube-apiserver"], 0)
	return total, parts, nil
}

func writeSAKey(path string) (string, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

func freePorts(n int) ([]int, error) {
	var out []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// bareProc is a floor process and whether it has exited.
type bareProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startBare(bin, logPath string, args ...string) (*bareProc, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &bareProc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); log.Close(); close(p.done) }()
	return p, nil
}

func stopBare(p *bareProc) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// waitOK polls url every probeEvery until it answers 200, p exits or
// within passes. TLS is not verified: the floor's serving certificate is
// the one kube-apiserver makes itself.
func waitOK(ctx context.Context, p *bareProc, url string, within time.Duration) error {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // loopback, the floor's own certificate
	deadline := time.Now().Add(within)
	last := ""
	for time.Now().Before(deadline) {
		resp, err := client.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.done:
			return fmt.Errorf("exited before %s answered", url)
		case <-time.After(probeEvery):
		}
	}
	return fmt.Errorf("%s not ready within %s (last: %s)", url, within, last)
}

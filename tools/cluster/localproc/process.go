package localproc

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/draconform/draconform/tools/internal/bintrust"
	"github.com/draconform/draconform/tools/internal/logtail"
)

// Process is one running binary of an embedded provider.
type Process struct {
	Name    string
	PID     int
	LogPath string
	done    chan struct{} // closed once the process has exited and been reaped
	exitErr error         // valid after done is closed
}

// Start runs bin with args, appending stdout and stderr to logPath
// after a header that records when and with which gates it started. The
// process gets its own group, so stopping it also stops anything it forked,
// and dies with its parent so that an interrupted test leaves nothing behind.
// trust checks bin first (bintrust.Checker.Check; nil remembers no
// digest): a binary of the build cache that changed since it was built,
// or one that another user than root could change when draconform runs
// as root, is refused, naming it, before it starts.
func Start(trust *bintrust.Checker, name, bin string, args []string, logPath, gates string) (*Process, error) {
	return StartEnv(trust, name, bin, args, logPath, gates, ComponentEnv(os.Environ()))
}

// ComponentEnv is the environment of the control plane's processes: env,
// with Go's collector told to run less often (GOGC=400, bounded by a soft
// GOMEMLIMIT of 1 GiB) unless env sets it. Start-up is mostly allocation;
// measured here, a kube-apiserver took 3.5 s of CPU to become ready with
// the default GOGC=100 and 2.8 s with 400, and every cell starts one.
func ComponentEnv(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=") {
			return env
		}
	}
	return append(env, "GOGC=400", "GOMEMLIMIT=1GiB")
}

// StartEnv is Start with the environment replaced by env,
// unless env is nil.
func StartEnv(trust *bintrust.Checker, name, bin string, args []string, logPath, gates string, env []string) (*Process, error) {
	real, err := trust.Check(bin)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s log: %w", name, err)
	}
	defer logFile.Close() // the child holds its own descriptor
	if gates == "" {
		gates = "(none; binary defaults)"
	}
	logtail.WriteStart(logFile, name, gates, bin, args)

	// The checked file runs, under the name it was given: what reads
	// command lines (a later run's cleanup) knows that one.
	cmd := exec.Command(real, args...)
	cmd.Args[0] = bin
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{Name: name, PID: cmd.Process.Pid, LogPath: logPath, done: make(chan struct{})}
	go func() {
		p.exitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Exited says whether the process has exited and been reaped.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Done is closed once the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr is how the process exited, once Done is closed.
func (p *Process) ExitErr() error { return p.exitErr }

// Stop sends SIGTERM to the process group, and SIGKILL if it has not exited
// after grace. It returns once the process has been reaped.
func (p *Process) Stop(grace time.Duration) {
	if p == nil || p.Exited() {
		return
	}
	_ = syscall.Kill(-p.PID, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.PID, syscall.SIGKILL)
		<-p.done
		p.Note(fmt.Sprintf("still running %s after SIGTERM; sent SIGKILL", grace))
	}
}

// Kill ends the process and its group at once, for a process whose state is
// thrown away with it.
func (p *Process) Kill() {
	if p == nil || p.Exited() {
		return
	}
	_ = syscall.Kill(-p.PID, syscall.SIGKILL)
	<-p.done
}

// Note appends a provider remark to the log, marked like the start header so
// that it is not mistaken for the component's own output.
func (p *Process) Note(msg string) {
	f, err := os.OpenFile(p.LogPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	defer f.Close()
	logtail.WriteNote(f, p.Name, msg)
}

// DiedError describes an exit during start, with the log tail that usually
// names the cause (a bad flag, an unknown feature gate, a busy port).
func (p *Process) DiedError() error {
	return fmt.Errorf("%s exited during start (%v); log %s, last lines:\n%s",
		p.Name, p.exitErr, p.LogPath, LogTail(p.LogPath, 30))
}

// LogTail returns the last n lines of the file's latest run, indented.
func LogTail(path string, n int) string {
	text, err := logtail.CurrentRun(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	return "    " + strings.ReplaceAll(logtail.Lines(text, n), "\n", "\n    ")
}

// FreePorts finds n distinct unused loopback ports. It takes them below the
// kernel's ephemeral range where it can: a port the kernel hands out for
// ":0" is free again once we close it, and with cells starting side by
// side and their cases' watches coming and going, an outgoing connection
// soon takes it as its local port before our component binds it (two
// runs in five lost a cell so). Below the range only another listener can
// take it, and a component that still loses its port starts again on a
// new one (retryPortTaken).
func FreePorts(n int) ([]int, error) {
	// Every listener stays open until all are chosen, so the ports differ.
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	lo, hi := listenRange()
	ports := make([]int, 0, n)
	for range n {
		l, err := listenBelowEphemeral(lo, hi)
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		_, portStr, _ := net.SplitHostPort(l.Addr().String())
		port, err := strconv.Atoi(portStr)
		if err != nil {
			return nil, fmt.Errorf("parsing port of %s: %w", l.Addr(), err)
		}
		ports = append(ports, port)
	}
	return ports, nil
}

// listenRange is where FreePorts looks: from 10000 to the start of the
// kernel's ephemeral range; empty where that range cannot be read or
// leaves too little room below it.
func listenRange() (lo, hi int) {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(string(data))
	if len(f) < 1 {
		return 0, 0
	}
	start, err := strconv.Atoi(f[0])
	if err != nil || start < 11000 {
		return 0, 0
	}
	return 10000, start
}

// listenBelowEphemeral listens on a random loopback port in [lo, hi), or
// on one the kernel picks when that range is empty or every try is taken.
func listenBelowEphemeral(lo, hi int) (net.Listener, error) {
	for range 20 {
		if hi <= lo {
			break
		}
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", lo+rand.IntN(hi-lo))); err == nil {
			return l, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("finding a free loopback port: %w", err)
	}
	return l, nil
}

// Package engine makes a Docker engine that can run kind's nodes available,
// and stops what it started. kind's nodes are privileged containers; on a
// machine whose capability bounding set lacks one Docker grants to
// privileged containers (CAP_SYS_RESOURCE, on the machines this project
// runs on), `docker run --privileged` fails. There, and only there, the
// engine draconform starts gets a runtime that drops what the bounding set
// lacks (tools/cmd/draconform-runc) before runc sees it. An engine draconform
// did not start is never reconfigured.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/host/capabilities"
	"github.com/draconform/draconform/tools/internal/logtail"
	"github.com/draconform/draconform/tools/internal/textline"
)

// CommandRunner runs a command and returns its combined output.
type CommandRunner func(ctx context.Context, name string, args ...string) ([]byte, error)

// ExecRunner runs commands with os/exec.
func ExecRunner(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}

// Options configure Ensure.
type Options struct {
	// StateDir holds what draconform adds to an engine it starts: the
	// runtime wrapper, the daemon's log, pid, configuration and key, and
	// the record of the machine before it started. Default
	// DefaultStateDir.
	StateDir string
	// DataRoot and RunDir are the engine's own data root and the folder
	// of its socket and exec root; default DefaultDataRoot and
	// DefaultRunDir.
	DataRoot, RunDir string
	// Host is the engine to use: DOCKER_HOST where the person set it
	// (an engine of theirs, used as it is), else draconform's own.
	Host string
	// RepoRoot is where the wrapper and the probe image's program are
	// built from.
	RepoRoot string
	// Install allows installing docker.io from Debian packages when no
	// engine is installed.
	Install bool
	// PolicyPath is Debian's policy-rc.d (default /usr/sbin/policy-rc.d),
	// which keeps the installed package's service from starting.
	PolicyPath string
	Log        io.Writer
	Run        CommandRunner
	// daemon starts and stops dockerd; lookPath and wrapper stand for the
	// host. Tests replace them.
	daemon   daemon
	lookPath func(string) (string, error)
	wrapper  func(context.Context) (string, error)
	host     hostPlaces
}

// Engine is a usable Docker engine.
type Engine struct {
	// Started says draconform started it, and Stop stops it.
	Started bool
	// Runtime is the default runtime draconform gave it ("" for runc).
	Runtime string
	// Host is the DOCKER_HOST that reaches it.
	Host string
	opts Options
}

// runtimeName is the runtime an engine draconform starts gets, where it
// needs one.
const runtimeName = "draconform-runc"

// Ensure returns a Docker engine that runs privileged containers: the one
// that runs already, or one it starts. It says what it does before it does
// it.
func Ensure(ctx context.Context, o Options) (*Engine, error) {
	o = o.withDefaults()
	if o.Host != o.OwnHost() {
		o.logf("DOCKER_HOST names the engine to use (%s): draconform uses it as it is", o.Host)
		return o.adopt(ctx, false)
	}
	if running, _ := o.daemon.running(o.StateDir); running {
		if o.answers(ctx) {
			return o.adopt(ctx, true)
		}
		return nil, fmt.Errorf("the engine draconform started earlier (pid file %s) does not answer `docker --host %s info`; stop it with `draconform engine down` and try again", o.daemon.pidFile(o.StateDir), o.Host)
	}
	if _, err := o.Run(ctx, "docker", "--host", MachineHost, "info", "--format", "{{.ServerVersion}}"); err == nil {
		return nil, fmt.Errorf("this machine's own Docker engine answers at %s: draconform neither touches it nor starts a second engine beside it; to run kind's nodes in it, say so: DOCKER_HOST=%s (make gate-matrix passes it on); or stop it, and draconform starts its own", MachineHost, MachineHost)
	}
	if err := o.install(ctx); err != nil {
		return nil, err
	}
	if err := o.recordMachine(); err != nil {
		return nil, err
	}
	if err := o.writeDaemonConfig(); err != nil {
		return nil, err
	}
	if err := o.ensureBridge(ctx); err != nil {
		return nil, err
	}
	e := &Engine{Started: true, Host: o.Host, opts: o}
	o.logf("starting dockerd with its own data root %s, socket %s and bridge %s (log %s)", o.DataRoot, o.socket(), OwnBridge, filepath.Join(o.StateDir, "dockerd.log"))
	if err := o.daemon.start(ctx, o.StateDir, o.Host, o.dockerdArgs()); err != nil {
		return nil, err
	}
	err := o.probe(ctx)
	if nerr := o.noteMade(); nerr != nil {
		_ = e.Stop(context.Background())
		return nil, nerr
	}
	if err == nil {
		o.logf("the engine runs privileged containers")
		return e, nil
	}
	if !isCapabilityError(err) {
		_ = e.Stop(context.Background())
		return nil, err
	}
	return o.restartWithRuntime(ctx, e, err)
}

// restartWithRuntime restarts the engine e, whose privileged containers
// failed with probeErr for want of capabilities, with the runtime that
// drops the ones this machine's bounding set lacks.
func (o Options) restartWithRuntime(ctx context.Context, e *Engine, probeErr error) (*Engine, error) {
	missing, merr := capabilities.Missing()
	if merr != nil {
		_ = e.Stop(context.Background())
		return nil, errors.Join(probeErr, merr)
	}
	o.logf("privileged containers fail here (%v): this machine's capability bounding set lacks %s; restarting dockerd with the runtime %s, which drops them", textline.First(probeErr.Error()), strings.Join(missing, ", "), runtimeName)
	if err := e.Stop(ctx); err != nil {
		return nil, err
	}
	wrapper, err := o.wrapper(ctx)
	if err != nil {
		return nil, err
	}
	if err := o.daemon.start(ctx, o.StateDir, o.Host, append(o.dockerdArgs(), "--add-runtime", runtimeName+"="+wrapper, "--default-runtime", runtimeName)); err != nil {
		return nil, err
	}
	e.Runtime = runtimeName
	if err := errors.Join(o.probe(ctx), o.noteMade()); err != nil {
		_ = e.Stop(context.Background())
		return nil, fmt.Errorf("privileged containers fail even with the runtime %s: %w", runtimeName, err)
	}
	o.logf("the engine runs privileged containers with the runtime %s", runtimeName)
	return e, nil
}

// adopt checks an engine that runs already. One that cannot run
// privileged containers is not draconform's to reconfigure, unless
// draconform started it.
func (o Options) adopt(ctx context.Context, mine bool) (*Engine, error) {
	if !mine && !o.answers(ctx) {
		return nil, fmt.Errorf("no Docker engine answers at DOCKER_HOST=%s; unset DOCKER_HOST and draconform starts its own", o.Host)
	}
	err := o.probe(ctx)
	if err == nil {
		if mine {
			o.logf("using the Docker engine draconform started earlier (DOCKER_HOST=%s)", o.Host)
		} else {
			o.logf("using the Docker engine at %s, which runs privileged containers; draconform leaves its configuration alone", o.Host)
		}
		return &Engine{Started: false, Host: o.Host, opts: o}, nil
	}
	hint := "draconform does not reconfigure an engine it did not start: unset DOCKER_HOST, and `make docker-engine` starts one of its own that can"
	if mine {
		hint = "it is the engine draconform started earlier: `draconform engine down`, then try again"
	}
	return nil, fmt.Errorf("the Docker engine at %s cannot run kind's privileged nodes: %w; %s", o.Host, err, hint)
}

// answers says whether the engine at o.Host answers `docker info`.
func (o Options) answers(ctx context.Context) bool {
	_, err := o.Run(ctx, "docker", o.dockerArgs("info", "--format", "{{.ServerVersion}}")...)
	return err == nil
}

// Stop stops the engine if draconform started it, and leaves it alone
// otherwise.
func (e *Engine) Stop(ctx context.Context) error {
	if e == nil || !e.Started {
		return nil
	}
	e.opts.logf("stopping the dockerd draconform started")
	return e.opts.daemon.stop(ctx, e.opts.StateDir)
}

func (o Options) withDefaults() Options {
	if o.StateDir == "" {
		o.StateDir = DefaultStateDir
	}
	if o.DataRoot == "" {
		o.DataRoot = DefaultDataRoot
	}
	if o.RunDir == "" {
		o.RunDir = DefaultRunDir
	}
	if o.Host == "" {
		o.Host = os.Getenv("DOCKER_HOST")
	}
	if o.Host == "" {
		o.Host = "unix://" + o.socket()
	}
	if o.host.NetClass == "" {
		o.host = defaultHostPlaces(o)
	}
	if o.Run == nil {
		o.Run = ExecRunner
	}
	if o.daemon == nil {
		o.daemon = processDaemon{log: o.Log}
	}
	if o.lookPath == nil {
		o.lookPath = exec.LookPath
	}
	if o.wrapper == nil {
		o.wrapper = o.installWrapper
	}
	return o
}

// Install puts docker.io in place where no engine is installed, and does
// nothing where one is.
func Install(ctx context.Context, o Options) error {
	o = o.withDefaults()
	o.Install = true
	return o.install(ctx)
}

// Down stops the engine draconform started (its pid file says which) and
// removes what it made: its data root (the node image with it), exec
// root, socket and state, its bridges and their veths, and the cgroups
// and Docker's hard-coded folders that appeared while it started. Any
// other engine is left alone: its bridges, veths, data and socket, and
// whatever another process holds open, are kept, and Down says which and
// why.
func Down(ctx context.Context, o Options) error {
	o = o.withDefaults()
	if running, pid := o.daemon.running(o.StateDir); running {
		o.logf("stopping the dockerd draconform started (pid %d)", pid)
		if err := o.daemon.stop(ctx, o.StateDir); err != nil {
			return err
		}
	} else {
		o.logf("no engine draconform started is running")
	}
	if _, err := os.Stat(o.beforeFile()); err != nil {
		o.logf("nothing of draconform's engine is left to remove")
		return nil
	}
	removed, kept, restored, err := o.removeLeftovers(ctx)
	for _, r := range removed {
		o.logf("removed %s", r)
	}
	for _, k := range kept {
		o.logf("kept %s", k)
	}
	for _, r := range restored {
		o.logf("wrote back %s", r)
	}
	return err
}

// install puts docker.io in place where no engine is installed, if allowed.
func (o Options) install(ctx context.Context) error {
	if _, err := o.lookPath("dockerd"); err == nil {
		return nil
	}
	if !o.Install {
		return errors.New("no Docker engine runs and dockerd is not installed; install one (on Debian: apt-get install docker.io), or let draconform do it: draconform engine up --install")
	}
	if os.Geteuid() != 0 {
		return errors.New("installing docker.io needs root")
	}
	if _, err := o.lookPath("apt-get"); err != nil {
		return errors.New("dockerd is not installed and this is no Debian-like system (no apt-get): install a Docker engine first")
	}
	o.logf("installing the Docker engine from Debian packages: apt-get install -y docker.io (its service is kept from starting: draconform starts the engine itself)")
	// Debian starts a package's service on install; an engine started so
	// would not be draconform's, and could not be given the runtime it
	// needs. policy-rc.d answering 101 forbids the start, for this install.
	// One a killed install left is ours to remove too.
	policy := o.policyPath()
	if _, err := os.Stat(policy); os.IsNotExist(err) || ownPolicy(policy) {
		if err := os.WriteFile(policy, []byte("#!/bin/sh\n"+policyMarker+"\nexit 101\n"), 0o755); err != nil {
			return err
		}
		defer os.Remove(policy)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	out, err := o.Run(ctx, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "--no-install-recommends", "docker.io")
	if err != nil {
		return fmt.Errorf("apt-get install docker.io: %w\n%s", err, logtail.Lines(string(out), 10))
	}
	return nil
}

// policyMarker is the line that tells the policy-rc.d draconform writes
// from one the machine's owner wrote.
const policyMarker = "# written by draconform engine during apt-get install docker.io"

func (o Options) policyPath() string {
	if o.PolicyPath != "" {
		return o.PolicyPath
	}
	return "/usr/sbin/policy-rc.d"
}

// ownPolicy says whether the policy-rc.d at path is draconform's.
func ownPolicy(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(data), policyMarker)
}

// HasStalePolicy says whether a policy-rc.d draconform wrote is in place.
func HasStalePolicy(o Options) bool { return ownPolicy(o.policyPath()) }

// RemoveStalePolicy removes the policy-rc.d an install killed before its
// clean-up left behind (it forbids every later service start on the
// machine), never one draconform did not write; it says whether it did.
func RemoveStalePolicy(o Options) (bool, error) {
	path := o.policyPath()
	if !ownPolicy(path) {
		return false, nil
	}
	if err := os.Remove(path); err != nil {
		return false, fmt.Errorf("removing %s, left by a killed install of docker.io: %w", path, err)
	}
	return true, nil
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, "engine: "+format+"\n", args...)
	}
}

func isCapabilityError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "apply caps") || strings.Contains(s, "operation not permitted")
}

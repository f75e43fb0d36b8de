package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeDocker answers docker commands as an engine would: info works while
// it runs, and privileged containers start only with the wrapper runtime
// when caps fail.
type fakeDocker struct {
	running, ours bool
	// machine is an engine of the machine's own at its default socket.
	machine        bool
	capsFail       bool
	runtimeArgs    []string
	calls, starts  []string
	stopped        int
	startErr, info error
	// net is the fake host's /sys/class/net, where `ip link` adds and
	// deletes; deleted are the links deleted. onStart makes what a dockerd
	// makes as it starts.
	net     string
	deleted []string
	onStart func()
}

func (f *fakeDocker) run(_ context.Context, name string, args ...string) ([]byte, error) {
	call := name + " " + strings.Join(args, " ")
	f.calls = append(f.calls, call)
	if name == "ip" {
		return f.ip(args)
	}
	if name != "docker" || len(args) < 3 || args[0] != "--host" {
		return []byte("not a docker command with its host"), errors.New("exit status 2")
	}
	up := f.running
	if args[1] == MachineHost {
		up = f.machine
	}
	if !up {
		return []byte("Cannot connect to the Docker daemon"), errors.New("exit status 1")
	}
	switch args[2] {
	case "run":
		if f.capsFail && len(f.runtimeArgs) == 0 {
			return []byte("docker: Error response from daemon: OCI runtime create failed: unable to apply caps: operation not permitted"), errors.New("exit status 125")
		}
	}
	return nil, nil
}

func (f *fakeDocker) start(_ context.Context, _, host string, args []string) error {
	// The arguments every start gets are held to their places by
	// TestEngineKeepsToItsOwnFolders; here only what is added.
	extra := args[len(ownArgs):]
	f.starts = append(f.starts, strings.Join(extra, " "))
	if f.startErr != nil {
		return f.startErr
	}
	f.running, f.ours, f.runtimeArgs = true, true, extra
	if f.onStart != nil {
		f.onStart()
	}
	return nil
}

// ip adds and deletes links as `ip link add name X type bridge` and
// `ip link delete X` do.
func (f *fakeDocker) ip(args []string) ([]byte, error) {
	switch {
	case len(args) == 6 && args[1] == "add":
		return nil, os.Mkdir(filepath.Join(f.net, args[3]), 0o755)
	case len(args) == 3 && args[1] == "delete":
		f.deleted = append(f.deleted, args[2])
		return nil, os.RemoveAll(filepath.Join(f.net, args[2]))
	}
	return []byte("unknown ip command"), errors.New("exit status 1")
}

func (f *fakeDocker) stop(context.Context, string) error {
	if f.ours {
		f.running, f.ours = false, false
		f.stopped++
	}
	return nil
}

func (f *fakeDocker) running_() bool { return f.running && f.ours }

func (f *fakeDocker) pidFile(string) string { return "/state/dockerd.pid" }

type fakeDaemon struct{ *fakeDocker }

func (d fakeDaemon) running(string) (bool, int) { return d.running_(), 42 }

// ownArgs are the arguments every start of the fake engine gets.
var ownArgs = Options{}.withDefaults().dockerdArgs()

// options give Ensure a fake engine on a host where dockerd is installed;
// its own folders are under a temporary one, and its socket is the
// default one, as on a machine.
func options(t *testing.T, f *fakeDocker, log *strings.Builder) Options {
	state := t.TempDir()
	host := fakeHost(t)
	f.net = host.NetClass
	return Options{StateDir: state, Run: f.run, Log: log, daemon: fakeDaemon{f}, host: host,
		Host:     OwnHost(),
		lookPath: func(name string) (string, error) { return "/usr/sbin/" + name, nil },
		wrapper:  func(context.Context) (string, error) { return state + "/bin/draconform-runc", nil },
	}
}

// personsHost is an engine the person names with DOCKER_HOST.
const personsHost = "unix:///home/someone/docker.sock"

func TestEnsureUsesTheEngineDockerHostNamesAsItIs(t *testing.T) {
	f := &fakeDocker{running: true}
	var log strings.Builder
	o := options(t, f, &log)
	o.Host = personsHost
	// The probe image is present (inspect succeeds), so nothing is built.
	e, err := Ensure(context.Background(), o)
	if err != nil || e.Started || len(f.starts) != 0 {
		t.Fatalf("engine %+v, err %v, starts %v", e, err, f.starts)
	}
	if err := e.Stop(context.Background()); err != nil || f.stopped != 0 {
		t.Errorf("an engine draconform did not start was stopped (%d): %v", f.stopped, err)
	}
	if !strings.Contains(log.String(), "leaves its configuration alone") {
		t.Errorf("log: %s", log.String())
	}
}

func TestEnsureLeavesAForeignEngineThatCannotRunPrivileged(t *testing.T) {
	f := &fakeDocker{running: true, capsFail: true}
	var log strings.Builder
	o := options(t, f, &log)
	o.Host = personsHost
	_, err := Ensure(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "does not reconfigure an engine it did not start") || !strings.Contains(err.Error(), "apply caps") {
		t.Fatalf("err %v", err)
	}
	if len(f.starts) != 0 || f.stopped != 0 {
		t.Errorf("a foreign engine was touched: starts %v, stops %d", f.starts, f.stopped)
	}
}

func TestEnsureStartsAPlainEngineWherePrivilegedWorks(t *testing.T) {
	f := &fakeDocker{}
	var log strings.Builder
	e, err := Ensure(context.Background(), options(t, f, &log))
	if err != nil || !e.Started || e.Runtime != "" || len(f.starts) != 1 || f.starts[0] != "" {
		t.Fatalf("engine %+v, err %v, starts %q", e, err, f.starts)
	}
	if err := e.Stop(context.Background()); err != nil || f.stopped != 1 {
		t.Errorf("stop: %v, stopped %d", err, f.stopped)
	}
}

// Where privileged containers fail for want of a capability, the engine
// draconform started is restarted with the wrapper as default runtime.
func TestEnsureRestartsItsEngineWithTheWrapperWhereCapsFail(t *testing.T) {
	f := &fakeDocker{capsFail: true}
	var log strings.Builder
	e, err := Ensure(context.Background(), options(t, f, &log))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "--add-runtime draconform-runc=" + e.opts.StateDir + "/bin/draconform-runc --default-runtime draconform-runc"}
	if !e.Started || e.Runtime != runtimeName || strings.Join(f.starts, "|") != strings.Join(want, "|") || f.stopped != 1 {
		t.Fatalf("engine %+v, starts %q, stops %d", e, f.starts, f.stopped)
	}
	if !strings.Contains(log.String(), "bounding set lacks") {
		t.Errorf("the log does not say why: %s", log.String())
	}
	// The restart finds the bridge the first start made.
	adds := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, "ip link add") {
			adds++
		}
	}
	if adds != 1 {
		t.Errorf("the engine's bridge was made %d times, want once: %q", adds, f.calls)
	}
}

func TestEnsureRefusesToInstallUnlessAllowed(t *testing.T) {
	f := &fakeDocker{}
	var log strings.Builder
	o := options(t, f, &log)
	o.lookPath = func(name string) (string, error) { return "", errors.New("not found") }
	_, err := Ensure(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "--install") || len(f.calls) != 1 {
		t.Fatalf("err %v, calls %q", err, f.calls)
	}
}

func TestEnsureSaysWhenItsOwnEngineHangs(t *testing.T) {
	f := &fakeDocker{running: false, ours: true}
	var log strings.Builder
	o := options(t, f, &log)
	o.daemon = stuckDaemon{fakeDaemon{f}}
	_, err := Ensure(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "draconform engine down") {
		t.Fatalf("err %v", err)
	}
}

type stuckDaemon struct{ fakeDaemon }

func (stuckDaemon) running(string) (bool, int) { return true, 42 }

package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// The engine draconform starts keeps everything apart from the machine's
// own Docker: its data root, exec root, socket, daemon configuration and
// key live in folders draconform owns, so that a machine engine started
// later, its images and containers, and /etc/docker are never touched,
// and `engine down` can remove all of it.
const (
	// DefaultStateDir holds the daemon's log, pid, configuration and the
	// runtime wrapper.
	DefaultStateDir = "/var/lib/draconform/engine"
	// DefaultDataRoot is the engine's --data-root: images, containers,
	// networks' state.
	DefaultDataRoot = "/var/lib/draconform/docker"
	// DefaultRunDir holds the engine's socket and exec root.
	DefaultRunDir = "/run/draconform"
	// MachineHost is where a machine's own engine answers by default.
	MachineHost = "unix:///var/run/docker.sock"
	// OwnBridge is the default bridge of draconform's engine. Under
	// Docker's own name, docker0, a machine engine started later would
	// take it over as its own, and `engine down` could not tell whose it
	// is; dockerd makes a default bridge itself only as docker0, so Ensure
	// makes this one.
	OwnBridge = "draconform0"
)

// socket is the unix socket draconform's engine listens on.
func (o Options) socket() string { return filepath.Join(o.RunDir, "docker.sock") }

// OwnHost is the DOCKER_HOST of the engine draconform starts.
func (o Options) OwnHost() string { return "unix://" + o.withDefaults().socket() }

// OwnHost is the DOCKER_HOST of the engine draconform starts with the
// default folders.
func OwnHost() string { return Options{}.OwnHost() }

// execRoot is the engine's --exec-root (its containerd's state, network
// namespaces, libnetwork's key socket).
func (o Options) execRoot() string { return filepath.Join(o.RunDir, "docker") }

// dockerdArgs are the flags every start of draconform's dockerd gets.
// The firewall and forwarding stay off: kind's nodes share one bridge and
// reach each other on it, the API servers are reached through published
// ports (docker-proxy), nothing in a node needs the outside (no registry
// answers); with them on, dockerd would switch net.ipv4.ip_forward on and
// add chains to the machine's iptables, which it never removes.
func (o Options) dockerdArgs() []string {
	return []string{
		"--host", o.OwnHost(),
		"--data-root", o.DataRoot,
		"--exec-root", o.execRoot(),
		"--pidfile", filepath.Join(o.StateDir, "dockerd.own.pid"),
		"--config-file", o.daemonConfig(),
		"--bridge", OwnBridge,
		"--iptables=false", "--ip-forward=false", "--ip-masq=false",
	}
}

// daemonConfig is the engine's own daemon.json: the machine's
// /etc/docker/daemon.json is not this engine's.
func (o Options) daemonConfig() string { return filepath.Join(o.StateDir, "daemon.json") }

// writeDaemonConfig writes it: dockerd 20.10 keeps its identity key in
// /etc/docker/key.json unless its configuration says otherwise (the
// setting has no command-line flag).
func (o Options) writeDaemonConfig() error {
	data, err := json.Marshal(map[string]string{"deprecated-key-path": filepath.Join(o.StateDir, "key.json")})
	if err != nil {
		return err
	}
	return os.WriteFile(o.daemonConfig(), append(data, '\n'), 0o644)
}

// dockerArgs points a docker command at the engine o works with.
func (o Options) dockerArgs(args ...string) []string {
	return append([]string{"--host", o.Host}, args...)
}

// PointDockerHost makes this process's docker commands (kind's library
// runs the docker CLI, which reads DOCKER_HOST) reach draconform's engine
// where it runs and DOCKER_HOST names none: the person's DOCKER_HOST is
// left as it is. It returns the DOCKER_HOST in effect ("" for docker's
// default).
func PointDockerHost() string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	own := OwnHost()
	if fi, err := os.Stat(strings.TrimPrefix(own, "unix://")); err == nil && fi.Mode()&os.ModeSocket != 0 {
		_ = os.Setenv("DOCKER_HOST", own)
		return own
	}
	return ""
}

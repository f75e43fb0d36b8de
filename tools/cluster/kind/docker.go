package kind

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/host/engine"
	"github.com/draconform/draconform/tools/internal/logtail"
)

// CommandRunner runs a command on the host and returns its combined
// output. The provider takes one so that what it asks of Docker can be
// tested without Docker; it is the engine set-up's, which asks Docker too.
type CommandRunner = engine.CommandRunner

// ExecRunner runs commands with os/exec.
var ExecRunner CommandRunner = engine.ExecRunner

// dockerInfoArgs asks for the server version only: it fails, like any
// `docker info`, when there is a client but no reachable engine, and keeps
// the output short.
var dockerInfoArgs = []string{"info", "--format", "{{.ServerVersion}}"}

// CheckDocker fails fast, with what is missing, where kind would otherwise
// fail deep inside cluster creation.
func CheckDocker(ctx context.Context, run CommandRunner) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := run(ctx, "docker", dockerInfoArgs...)
	return dockerError(out, err)
}

// dockerError words the result of `docker info` for someone who may not
// know the kind provider needs Docker at all.
func dockerError(out []byte, err error) error {
	if err == nil {
		return nil
	}
	detail := err.Error()
	// docker prints its error last, after headings such as "Server:".
	if msg := lastLines(string(out), 1); msg != "" {
		detail += ": " + msg
	}
	return fmt.Errorf("the kind provider needs a Docker engine: `docker info` failed: %s (the embedded providers, local and prototype, run without Docker: make conformance)", detail)
}

// lastLines keeps the end of a command's output, where its error is, on
// one line.
func lastLines(s string, n int) string {
	var kept []string
	for _, l := range strings.Split(logtail.Lines(strings.TrimSpace(s), n), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, " / ")
}

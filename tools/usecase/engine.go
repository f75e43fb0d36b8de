package usecase

import (
	"context"
	"fmt"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/host/engine"
)

// EngineRequest manages the Docker engine kind's nodes run in: "up" makes
// one that runs privileged containers available (the running one, or one
// it starts, with a capability-dropping runtime only where privileged
// containers fail), "install" only installs docker.io where no engine is,
// "down" stops what up started.
type EngineRequest struct {
	Verb     string
	Install  bool
	StateDir string
}

// DefaultEngineStateDir is where draconform keeps its engine's state.
const DefaultEngineStateDir = engine.DefaultStateDir

// Engine does what r.Verb says; a failure's message starts with its verb.
func Engine(ctx context.Context, r EngineRequest, s Streams) error {
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		return err
	}
	o := engine.Options{StateDir: r.StateDir, RepoRoot: root, Install: r.Install, Log: s.Out}
	switch r.Verb {
	case "up":
		e, err := engine.Ensure(ctx, o)
		if err != nil {
			return &SubcommandError{"up", err}
		}
		if e.Host == engine.OwnHost() || e.Started {
			fmt.Fprintf(s.Out, "engine: draconform's dockerd runs; reach it with DOCKER_HOST=%s (make's targets and draconform set it); `draconform engine down` stops it and removes what it made\n", e.Host)
		}
	case "install":
		err = engine.Install(ctx, o)
	case "down":
		err = engine.Down(ctx, o)
	default:
		return failed(2, fmt.Errorf("unknown subcommand %q (up, install, down)", r.Verb))
	}
	if err != nil {
		return &SubcommandError{r.Verb, err}
	}
	return nil
}

// A SubcommandError is the failure of one of engine's subcommands, which
// the command line names.
type SubcommandError struct {
	Verb string
	Err  error
}

func (e *SubcommandError) Error() string { return e.Verb + ": " + e.Err.Error() }

func (e *SubcommandError) Unwrap() error { return e.Err }

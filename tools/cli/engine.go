package cli

import (
	"context"
	"fmt"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/host/engine"
	"github.com/spf13/pflag"
)

// engineCmd manages the Docker engine kind's nodes run in: up makes one
// that runs privileged containers available (the running one, or one it
// starts, with a capability-dropping runtime only where privileged
// containers fail), install only installs docker.io where no engine is,
// down stops what up started.
func engineCmd(fs *pflag.FlagSet) action {
	install := fs.Bool("install", false, "with up: install docker.io from Debian packages when no engine is installed (root)")
	stateDir := fs.String("state-dir", "", "where draconform keeps its engine's runtime wrapper, log, pid and configuration (default "+engine.DefaultStateDir+")")
	return func(ctx context.Context, args []string, s Streams) int {
		if len(args) != 1 {
			fmt.Fprintln(s.Err, "usage: draconform engine up [--install] | install | down")
			return 2
		}
		root, err := k8sbuild.FindRepoRoot()
		if err != nil {
			fmt.Fprintln(s.Err, "draconform engine:", err)
			return 1
		}
		o := engine.Options{StateDir: *stateDir, RepoRoot: root, Install: *install, Log: s.Out}
		switch args[0] {
		case "up":
			e, err := engine.Ensure(ctx, o)
			if err != nil {
				fmt.Fprintln(s.Err, "draconform engine up:", err)
				return 1
			}
			if e.Host == engine.OwnHost() || e.Started {
				fmt.Fprintf(s.Out, "engine: draconform's dockerd runs; reach it with DOCKER_HOST=%s (make's targets and draconform set it); `draconform engine down` stops it and removes what it made\n", e.Host)
			}
		case "install":
			err = engine.Install(ctx, o)
		case "down":
			err = engine.Down(ctx, o)
		default:
			fmt.Fprintf(s.Err, "draconform engine: unknown subcommand %q (up, install, down)\n", args[0])
			return 2
		}
		if err != nil {
			fmt.Fprintf(s.Err, "draconform engine %s: %v\n", args[0], err)
			return 1
		}
		return 0
	}
}

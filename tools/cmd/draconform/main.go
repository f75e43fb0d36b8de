// Command draconform runs the KEP-6406 conformance suite; see README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/draconform/draconform/tools/cli"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	// A closed terminal (SIGHUP) and a polite kill mean what Ctrl-C means:
	// by default they end the process at once and leave its control
	// planes, nodes, mounts and kernel settings behind.
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go cli.WatchInterrupts(sigs, cancel, os.Stderr, os.Exit)
	// A child of another draconform (a shard, a run of its own) hears of
	// its parent's death once, as one Ctrl-C.
	stopParent := cli.InterruptOnceWhenParentGoes()
	code := cli.Run(ctx, os.Args[1:], cli.Streams{Out: os.Stdout, Err: os.Stderr})
	signal.Stop(sigs)
	stopParent()
	os.Exit(code)
}

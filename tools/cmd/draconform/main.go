// Command draconform runs the KEP-6406 conformance suite; see README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/draconform/draconform/tools/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Run(ctx, os.Args[1:], app.Streams{Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}

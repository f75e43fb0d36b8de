package usecase

import (
	"context"
	"github.com/draconform/draconform/steps"
	"io"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/cluster/localcp"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/runner/shards"
)

// ServeChild serves this process's request when a sharded run started it
// for one of its shards, and says whether it did, with its exit code.
func ServeChild(ctx context.Context, out, errOut io.Writer) (code int, served bool) {
	return shards.ServeChild(ctx, out, errOut)
}

// Held are the processes and folders process pid holds in tmp: what a stop
// at once leaves on the machine.
func Held(pid int, tmp string) (procs, dirs []string) {
	return localcp.Held(pid, tmp)
}

// BuiltIn loads the suites and fixtures built into draconform.
func BuiltIn() (*loader.Bundle, error) {
	return loader.Load(suites.FS, fixtures.FS, steps.Kinds())
}

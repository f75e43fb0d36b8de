package app

import (
	"context"
	"fmt"
	"os"

	"github.com/draconform/draconform/tools/cluster/providers"
)

// binariesCmd builds (or finds in the cache) what the embedded providers
// run, so a long cold build can happen before, and apart from, a run.
func binariesCmd(ctx context.Context, args []string, s Streams) int {
	fs := newFlagSet("binaries", s)
	var prov providerFlags
	prov.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	for _, name := range splitList(prov.provider) {
		if name == "kubeconfig" {
			continue
		}
		_, stop, err := providers.New(ctx, prov.config(name, os.TempDir(), s))
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 1
		}
		stop()
		fmt.Fprintf(s.Out, "binaries for %s are ready\n", name)
	}
	return 0
}

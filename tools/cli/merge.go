package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/runner/shards"
)

// mergeCmd joins the outputs of `run --shard i/n` into one run's.
func mergeCmd(fs *pflag.FlagSet) action {
	var specs specFlags
	specs.register(fs)
	out := fs.String("out", "", "directory of the merged run's reports (required)")
	golden := fs.String("golden", "", "table of expected outcomes the merged run must match, e.g. docs/golden-outcomes.json")
	return func(_ context.Context, args []string, s Streams) int {
		if *out == "" || len(args) == 0 {
			fmt.Fprintln(s.Err, "usage: draconform merge --out DIR [--golden FILE] SHARD_DIR...")
			return 2
		}
		for _, d := range args {
			if filepath.Clean(d) == filepath.Clean(*out) {
				fmt.Fprintf(s.Err, "draconform merge: --out %s is one of the shards' folders; merge into a folder of its own\n", *out)
				return 2
			}
		}
		return shards.Merge(shards.MergeConfig{Dirs: args, Out: *out, SuitesDir: specs.suites, FixturesDir: specs.fixtures,
			Golden: *golden, Version: buildVersion().String(), Command: os.Args, Stdout: s.Out, Stderr: s.Err})
	}
}

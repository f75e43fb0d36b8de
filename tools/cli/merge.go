package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// mergeCmd joins the outputs of `run --shard i/n` into one run's, and the
// part bundles of `certify --shard i/n` into one bundle.
func mergeCmd(fs *pflag.FlagSet) action {
	var r usecase.MergeRequest
	registerSpecs(fs, &r.Specs)
	fs.StringVar(&r.Out, "out", "", "directory of the merged run's reports (required)")
	fs.StringVar(&r.Golden, "golden", "", "table of expected outcomes the merged run must match, e.g. docs/golden-outcomes.json")
	fs.StringVar(&r.Bundle, "bundle", "", "the shard folders are part bundles of certify --shard: join them into one certification bundle in this directory")
	fs.StringVar(&r.SignKey, "sign-key", "", "with --bundle: sign the merged bundle with this SSH key, as certify --sign-key does")
	return func(ctx context.Context, args []string, s Streams) int {
		if r.Out == "" || len(args) == 0 {
			fmt.Fprintln(s.Err, "usage: draconform merge --out DIR [--golden FILE] [--bundle DIR] SHARD_DIR...")
			return 2
		}
		r.Dirs, r.Version, r.Command = args, buildVersion(), os.Args
		r.BundleCommand = commandLine("merge", fs) + " " + strings.Join(args, " ")
		res, err := usecase.Merge(ctx, r, s.uc())
		if err != nil || !res.Bundled {
			return exit(s, "draconform merge:", err)
		}
		return printVerdict("merge", res.Verdict, res.BundleDir, res.Check, s)
	}
}

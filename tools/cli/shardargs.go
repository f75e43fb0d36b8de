package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/draconform/draconform/tools/runner/shards"
)

// shardArgs are the command line of one shard: the run's own selection and
// options, narrowed to one implementation and one cell. The runner runs the
// processes; their flags are the command line's to say.
func (r runRequest) shardArgs(sh shards.Shard, outDir, shardOut, runID string, nodeBuilt bool) []string {
	args := []string{"run", "--provider", sh.Provider, "--cells", sh.Cell, "--out", outDir,
		"--shard-out", shardOut, "--run-id", runID, "--parallel", "1",
		"--case-timeout", r.caseTimeout.String(), "--case-parallel", strconv.Itoa(r.casesAtOnce())}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	add("--suites", r.specs.suites)
	add("--fixtures", r.specs.fixtures)
	add("--suite", r.filter.suites)
	add("--focus", r.focus)
	add("--label-filter", r.labels)
	add("--driver-profile", r.profile)
	add("--k8s-version", r.prov.local.Version)
	add("--cache-dir", r.prov.local.CacheDir)
	add("--bin-dir", r.prov.local.BinDir)
	add("--bin", r.prov.bins)
	if r.prov.local.HasBinaries() {
		add("--bin-encoding", r.prov.local.BinEncoding)
	}
	if r.verbose {
		args = append(args, "--verbose")
	}
	if r.failFast {
		args = append(args, "--fail-fast")
	}
	if nodeBuilt {
		args = append(args, "--node-built")
	}
	if len(sh.IDs) > 0 {
		args = append(args, "--case-ids", strings.Join(sh.IDs, ","), "--part", fmt.Sprintf("%dof%d", sh.Part, sh.Parts))
	}
	return args
}

package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// version is set at link time (-ldflags "-X
// github.com/draconform/draconform/tools/cli.version=v0.3.0"); without it,
// the module version or "devel" stands.
var version string

// buildVersion is the version of this build: the link-time value and the
// build's own VCS stamp.
func buildVersion() usecase.Version { return usecase.BuildVersion(version) }

func versionCmd(*pflag.FlagSet) action {
	return func(_ context.Context, _ []string, s Streams) int {
		v := buildVersion()
		fmt.Fprintf(s.Out, "draconform %s\ncommit %s", v.Version, orUnknown(v.Commit))
		if v.Modified {
			fmt.Fprint(s.Out, " (with uncommitted changes)")
		}
		fmt.Fprintf(s.Out, "\nsuites and fixtures sha256:%s\n%s\n", v.SuiteDigest, v.GoVersion)
		return 0
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown (built without VCS information)"
	}
	return s
}

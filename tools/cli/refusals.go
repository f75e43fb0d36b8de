package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/draconform/draconform/tools/usecase"
)

// A refusal is a command line draconform will not run (usecase.Refusal):
// it exits 2, as cobra's own refusals and kubectl's do.
type refusal = usecase.Refusal

func refuse(format string, args ...any) *refusal { return usecase.Refuse(format, args...) }

// noArgs refuses arguments to a verb that takes none: a filter written
// without its flag would otherwise be dropped, and the whole matrix run.
func noArgs(verb string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		return refuse("takes no arguments, got %q: filters and options are flags (draconform %s --help lists them)", strings.Join(args, " "), verb)
	}
}

// printRefusal prints r as a verb's refusal and returns its exit code.
func printRefusal(s Streams, r *refusal) int {
	fmt.Fprintln(s.Err, "draconform:", r)
	return 2
}

package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/lang/loader"
)

// completeNames lets the shell complete the names --provider, --suite and
// --cells take, on every verb that has them; each is a comma-separated
// list, so the names complete after the last comma.
func completeNames(cmd *cobra.Command) {
	lists := map[string]func() []string{
		"provider": providers.Names,
		"suite":    func() []string { return builtinNames(suiteNames) },
		"cells":    func() []string { return builtinNames(func(b *loader.Bundle) []string { return b.CellOrder }) },
	}
	for flag, names := range lists {
		if cmd.Flags().Lookup(flag) == nil {
			continue
		}
		_ = cmd.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			done := toComplete[:strings.LastIndex(toComplete, ",")+1]
			var out []string
			for _, n := range names() {
				if strings.HasPrefix(done+n, toComplete) && !strings.Contains(","+done, ","+n+",") {
					out = append(out, done+n)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		})
	}
}

// builtinNames are names from the built-in suites; a shell completing a
// flag has no --suites to read yet.
func builtinNames(of func(*loader.Bundle) []string) []string {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		return nil
	}
	return of(b)
}

func suiteNames(b *loader.Bundle) []string {
	var out []string
	for _, s := range b.Suites {
		out = append(out, s.Name)
	}
	return out
}

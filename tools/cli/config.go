package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/draconform/draconform/tools/cli/flagfile"
	"github.com/draconform/draconform/tools/lang/loader"
)

// configVerbs read a config file of the flags a team always passes: run
// and the verbs that share its flags. Not certify: a bundle records the
// command line that made it, and a file beside it would shape the
// certification unseen.
var configVerbs = map[string]bool{"run": true, "plan": true, "preflight": true}

// addConfigFlag registers --config on a verb that reads a config file.
func addConfigFlag(cmd *cobra.Command) {
	if configVerbs[cmd.Name()] {
		cmd.Flags().String("config", "", "a file of flags to use when not given on the command line (default: "+flagfile.Default+" in the current folder, if there is one); the keys are the long flag names")
	}
}

// applyConfig gives the verb the flags its config file sets and says, in
// one line, which file shaped the run; a problem in the file is a refusal
// with its file:line.
func applyConfig(c *cobra.Command, s Streams) *refusal {
	if !configVerbs[c.Name()] {
		return nil
	}
	path, _ := c.Flags().GetString("config")
	named := path != ""
	if !named {
		path = flagfile.Default
	}
	applied, err := flagfile.Apply(c.Flags(), path, named)
	if problems, ok := err.(loader.Problems); ok {
		return refuse("config file %s is refused:\n%v", path, problems)
	}
	if err != nil {
		return refuse("%v", err)
	}
	if applied == nil {
		return nil
	}
	line := fmt.Sprintf("draconform: config %s read", applied.Path)
	if len(applied.Set) > 0 {
		line += ": " + strings.Join(applied.Set, ", ")
	} else {
		line += ": it sets nothing"
	}
	if len(applied.Overridden) > 0 {
		line += "; the command line wins for " + strings.Join(applied.Overridden, ", ")
	}
	fmt.Fprintln(s.Err, line)
	return nil
}

package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// helpWidth is the column help text wraps at, as kubectl's does.
const helpWidth = 100

// userVerbs are what a person testing a cluster or a driver reaches for;
// the rest build, measure and document draconform itself. Help lists them
// first, in this order.
var userVerbs = []string{"run", "results", "merge", "plan", "lint", "preflight", "cleanup", "certify", "verify-bundle", "up", "rbac", "version"}

// examples are shown under a verb's help.
var examples = map[string]string{
	"run": `  draconform run --suite feature-absent               # one suite, on local and prototype
  draconform run --provider prototype --focus implicit-name
  draconform run --provider kubeconfig --label-filter '!kubelet'   # your cluster (preflight first)
  draconform run --golden docs/golden-outcomes.json   # the whole matrix, checked against the table`,
	"plan": `  draconform plan --list suites                       # also cells, cases, providers, claims
  draconform plan --suite kep6406-skew --label-filter '!restart'`,
	"lint": `  draconform lint
  draconform lint --suites ./my-suites                # problems named ./my-suites/<file>:<line>`,
}

// setHelp makes root's help, and every verb's, wrap at helpWidth and list
// the user verbs before the developer ones.
func setHelp(root *cobra.Command) {
	root.AddGroup(&cobra.Group{ID: "user", Title: "Testing a cluster or a driver:"},
		&cobra.Group{ID: "dev", Title: "Building, measuring and documenting draconform:"})
	for _, c := range root.Commands() {
		switch {
		case slices.Contains(userVerbs, c.Name()):
			c.GroupID = "user"
		case c.Name() != "help" && c.Name() != "completion":
			c.GroupID = "dev"
		}
	}
	for _, c := range root.Commands() {
		c.Example = examples[c.Name()]
	}
	root.SetHelpCommandGroupID("dev")
	root.SetCompletionCommandGroupID("dev")
	root.SetUsageFunc(func(c *cobra.Command) error {
		writeUsage(c.OutOrStderr(), c)
		return nil
	})
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		w := c.OutOrStdout()
		fmt.Fprintln(w, wrap(c.Short, helpWidth, ""))
		fmt.Fprintln(w)
		writeUsage(w, c)
	})
}

func writeUsage(w io.Writer, c *cobra.Command) {
	fmt.Fprintf(w, "Usage:\n  %s\n", c.UseLine())
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "  %s [command]\n", c.CommandPath())
		pad := 0
		for _, sub := range c.Commands() {
			pad = max(pad, len(sub.Name()))
		}
		for _, g := range c.Groups() {
			fmt.Fprintf(w, "\n%s\n", g.Title)
			order := append([]string(nil), userVerbs...)
			for _, sub := range c.Commands() {
				if !slices.Contains(order, sub.Name()) {
					order = append(order, sub.Name())
				}
			}
			for _, name := range order {
				sub, _, err := c.Find([]string{name})
				if err != nil || sub == c || sub.GroupID != g.ID || !(sub.IsAvailableCommand() || sub.Name() == "help") {
					continue
				}
				indent := strings.Repeat(" ", pad+4)
				fmt.Fprintf(w, "  %-*s  %s\n", pad, sub.Name(), wrap(sub.Short, helpWidth-len(indent), indent))
			}
		}
	}
	if c.HasExample() {
		fmt.Fprintf(w, "\nExamples:\n%s\n", c.Example)
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", c.LocalFlags().FlagUsagesWrapped(helpWidth))
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(w, "\nGlobal Flags:\n%s", c.InheritedFlags().FlagUsagesWrapped(helpWidth))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nUse \"%s [command] --help\" for more information about a command.\n", c.CommandPath())
	}
}

// wrap breaks s into lines of at most width columns, every line after the
// first indented by indent.
func wrap(s string, width int, indent string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	lines = append(lines, line)
	return strings.Join(lines, "\n"+indent)
}

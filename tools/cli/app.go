// Package app is the draconform command line: one function per verb, each
// taking its arguments and streams, so every verb is testable without a
// process of its own.
package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/draconform/draconform/tools/usecase"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Streams are where a verb writes.
type Streams struct {
	Out io.Writer
	Err io.Writer
	// NoColor is --no-color: no ANSI colour codes, even on a terminal.
	NoColor bool
}

// action is a verb once its flags are parsed: it runs with the remaining
// arguments and returns the exit code.
type action func(ctx context.Context, args []string, s Streams) int

type verb struct {
	name, usage string
	// setup registers the verb's flags and returns its action, so that
	// cobra parses, completes and documents the flags while the verb stays
	// one small function.
	setup func(fs *pflag.FlagSet) action
}

func verbs() []verb {
	return []verb{
		{"run", "run the suites against a cluster (default: an embedded v1.37.2 control plane)", runCmd},
		{"merge", "join the outputs of draconform run --shard i/n, every share of one plan, into one run's reports, golden comparison and verdicts", mergeCmd},
		{"mutation", "run the suite against every known-broken implementation and show which cases catch each", mutationCmd},
		{"bench", "measure draconform's own speed: the matrix N times with the binaries built, or (--cold) a newcomer's first make conformance; writes docs/bench.md", benchCmd},
		{"flake-check", "run the whole suite N times (default 20) and compare every run with the golden outcomes", flakeCheckCmd},
		{"lint", "load and validate suites and fixtures; report every problem with file:line", lintCmd},
		{"plan", "list the cases a run would execute, with their labels", planCmd},
		{"results", "show a past run again from its output folder (its summary, failures and verdicts), judged again against --golden", resultsCmd},
		{"docs", "write docs/traceability.md and docs/register.md from the specs (--check verifies them)", docsCmd},
		{"kind-configs", "write kind-configs/<cell>.yaml, a kind cluster config per gate cell (--check verifies them)", kindConfigsCmd},
		{"schema", "print the JSON Schema of suite, fixture and cell files, for editors", schemaCmd},
		{"cleanup", "delete what draconform runs left on a cluster (objects carrying its run label)", cleanupCmd},
		{"preflight", "check a cluster before a run: credentials, reachability, every permission a run needs, and what a run would create and set off there", preflightCmd},
		{"rbac", "print the RBAC role, bindings and admission policy that let a user run draconform and nothing more (kubectl apply -f -)", rbacCmd},
		{"up", "start an embedded control plane for one cell and keep it until Ctrl-C", upCmd},
		{"example-driver", "install the Kubernetes SIG's example DRA driver (its kubelet plugin built at the pinned version, its chart rendered) on the node of a running draconform up --node until Ctrl-C, then remove everything it created", exampleDriverCmd},
		{"binaries", "build (or find in the cache) the Kubernetes binaries of the embedded control plane", binariesCmd},
		{"node-image", "print the kind node image the gate matrix runs: kind's published one where its registry serves it, else one built offline from Debian packages and Go modules", nodeImageCmd},
		{"clis", "build (or find in the cache) the named command-line tools, " + strings.Join(usecase.CLINames(), ", ") + ", at the versions this repository pins, and print their folders for PATH", clisCmd},
		{"engine", "up: a Docker engine that runs kind's privileged nodes (starts one where needed); down: stop it", engineCmd},
		{"certify", "run every suite on one implementation and write a certification bundle (PRODUCT.yaml, e2e.log, junit_01.xml, verdicts, cluster facts, sums)", certifyCmd},
		{"verify-bundle", "check a certification bundle as a reviewer would: complete, sums match, verdicts follow from the outcomes", verifyBundleCmd},
		{"image", "write an image in-cluster runs need as an archive, built without Docker: draconform's own, Sonobuoy's (--of sonobuoy) or the example profile's workload (--of workload); print its path and its reference by digest", imageCmd},
		{"sonobuoy-plugin", "print the Sonobuoy plugin definition that runs draconform in the cluster (results as JUnit)", sonobuoyPluginCmd},
		{"version", "print draconform's version, commit and the digest of its built-in suites and fixtures", versionCmd},
	}
}

// Run runs the command line args and returns the process exit code: the
// verb's own, or 2 for a command line cobra refused.
func Run(ctx context.Context, args []string, s Streams) int {
	// A sharded run starts this program again for each of its shards.
	if code, served := usecase.ServeChild(ctx, s.Out, s.Err); served {
		return code
	}
	code := 0
	root := newRoot(s, &code)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		name := "draconform"
		if c, _, ferr := root.Find(args); ferr == nil && c != root {
			name = c.CommandPath()
		}
		if _, ok := err.(*refusal); ok {
			// It says where to look itself.
			fmt.Fprintf(s.Err, "%s: %v\n", name, err)
			return 2
		}
		fmt.Fprintf(s.Err, "%s: %v\nRun '%s --help' for usage.\n", name, err, name)
		return 2
	}
	return code
}

// newRoot builds the command tree; the verb that runs stores its exit code
// in code.
func newRoot(s Streams, code *int) *cobra.Command {
	root := &cobra.Command{
		Use:           "draconform",
		Short:         "conformance suite for KEP-6406 (DRA extended resource capacity)",
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       buildVersion().String(),
	}
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetVersionTemplate("{{.Version}}\n")
	// -v is --verbose, under every verb, as kubectl's -v is verbosity;
	// the version is --version or draconform version. At the root, where
	// -v once printed the version, it still does, and says so.
	root.Flags().Bool("version", false, "print the version (as draconform version does)")
	oldV := root.Flags().BoolP("verbose", "v", false, "")
	_ = root.Flags().MarkHidden("verbose")
	root.Run = func(c *cobra.Command, _ []string) {
		if *oldV {
			fmt.Fprintln(s.Out, buildVersion())
			fmt.Fprintln(s.Err, "draconform: -v is --verbose now, as in kubectl; for the version use --version or draconform version")
			return
		}
		// No verb: the help, as kubectl and kind do.
		_ = c.Help()
	}
	root.PersistentFlags().Bool("no-color", false, "no ANSI colour codes, even on a terminal (so does the environment variable NO_COLOR; without a terminal there are none)")
	for _, v := range verbs() {
		cmd := &cobra.Command{Use: v.name, Short: v.usage, Args: noArgs(v.name)}
		if takesArgs[v.name] {
			cmd.Args = cobra.ArbitraryArgs
		}
		act := v.setup(cmd.Flags())
		addConfigFlag(cmd)
		completeNames(cmd)
		cmd.Run = func(c *cobra.Command, args []string) {
			if r := applyConfig(c, s); r != nil {
				*code = printRefusal(s, r)
				return
			}
			vs := s
			vs.NoColor, _ = c.Flags().GetBool("no-color")
			*code = act(c.Context(), args, vs)
		}
		root.AddCommand(cmd)
	}
	setHelp(root)
	return root
}

// takesArgs are the verbs with arguments (a subcommand, a folder), which
// check them themselves; every other verb refuses any.
var takesArgs = map[string]bool{"clis": true, "engine": true, "verify-bundle": true, "results": true, "merge": true, "bench": true}

// registerSpecs registers the flags every verb that loads specs shares.
func registerSpecs(fs *pflag.FlagSet, f *usecase.Specs) {
	fs.StringVar(&f.Suites, "suites", "", "directory of suite YAML files (default: the suites built into draconform)")
	fs.StringVar(&f.Fixtures, "fixtures", "", "directory of fixture YAML files (default: the fixtures built into draconform)")
}

// uc is where a use case writes: the verb's streams.
func (s Streams) uc() usecase.Streams { return usecase.Streams{Out: s.Out, Err: s.Err} }

// exit says why a use case failed, where it did not say so itself, under
// prefix (the verb's name, "draconform:" for a refusal), and returns its
// exit code.
func exit(s Streams, prefix string, err error) int {
	code, msg := usecase.ExitCode(err)
	if _, ok := err.(*refusal); ok {
		prefix = "draconform:"
	}
	if msg != "" {
		fmt.Fprintln(s.Err, prefix, msg)
	}
	return code
}

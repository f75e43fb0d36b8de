package shards

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// RequestEnv names the file of the Request a shard process is started
// with. Any program that calls ServeChild first can be a shard: draconform,
// or a test binary standing in for it (tools/runner/e2e).
const RequestEnv = "DRACONFORM_SHARD_REQUEST"

// Common is what every shard process of a run shares beyond the run's
// Options, which hold parsed specs and live providers: where the specs and
// the driver profile are read from, the --suite filter, the embedded
// providers' options and the display. The parent writes it, with the
// shard's own share, into each process's Request.
type Common struct {
	// SuitesDir and FixturesDir are folders of YAML files; empty, the
	// suites and fixtures built into the binary.
	SuitesDir   string `json:"suitesDir,omitempty"`
	FixturesDir string `json:"fixturesDir,omitempty"`
	// Suites narrows the plan to these suites, as the run's was.
	Suites []string `json:"suites,omitempty"`
	// Profile is the driver profile file, if the run has one.
	Profile string `json:"profile,omitempty"`
	// Local configures the embedded providers, the only ones whose cells
	// run as processes (Separable).
	Local   providers.LocalOptions `json:"local"`
	Verbose bool                   `json:"verbose,omitempty"`
}

// Request is one shard process's work, as data.
type Request struct {
	Common
	Provider string   `json:"provider"`
	Target   string   `json:"target"`
	Cell     string   `json:"cell"`
	IDs      []string `json:"ids,omitempty"`
	Part     int      `json:"part"`
	Parts    int      `json:"parts"`
	// NodeBuilt says the parent built the node's binaries into OutDir.
	NodeBuilt    bool          `json:"nodeBuilt,omitempty"`
	OutDir       string        `json:"outDir"`
	ShardOut     string        `json:"shardOut"`
	RunID        string        `json:"runId"`
	Focus        string        `json:"focus,omitempty"`
	LabelFilter  string        `json:"labelFilter,omitempty"`
	CaseTimeout  time.Duration `json:"caseTimeout"`
	CaseParallel int           `json:"caseParallel"`
	Version      string        `json:"version,omitempty"`
	Command      []string      `json:"command,omitempty"`
	// FailFast and Rerun are the run's (--fail-fast, the flags its rerun
	// commands carry).
	FailFast bool              `json:"failFast,omitempty"`
	Rerun    report.RerunFlags `json:"rerun,omitempty"`
	// KeepOnFailure is --keep-on-failure: the shard's cluster is its own
	// and stops with it, which the kept text says.
	KeepOnFailure bool `json:"keepOnFailure,omitempty"`
}

// request is the Request of shard sh of c's run, writing its report to
// shardOut.
func (c *Config) request(sh Shard, shardOut string, nodeBuilt bool) Request {
	o := c.Options
	return Request{Common: c.Common, Provider: sh.Provider, Target: sh.Target, Cell: sh.Cell, IDs: sh.IDs, Part: sh.Part, Parts: sh.Parts,
		NodeBuilt: nodeBuilt, OutDir: o.OutDir, ShardOut: shardOut, RunID: o.RunID, Focus: o.Focus, LabelFilter: o.LabelFilter,
		CaseTimeout: o.CaseTimeout, CaseParallel: o.CaseParallel, Version: o.Version, Command: o.Command,
		FailFast: o.FailFast, Rerun: o.Rerun, KeepOnFailure: o.KeepOnFailure}
}

func writeRequest(path string, q Request) error {
	data, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the shard's request: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing the shard's request: %w", err)
	}
	return nil
}

func readRequest(path string) (Request, error) {
	var q Request
	data, err := os.ReadFile(path)
	if err != nil {
		return q, fmt.Errorf("reading the shard's request: %w", err)
	}
	if err := json.Unmarshal(data, &q); err != nil {
		return q, fmt.Errorf("reading the shard's request %s: %w", path, err)
	}
	return q, nil
}

// ServeChild runs the shard this process was started as, if $RequestEnv
// names its request, and returns its exit code; served is false in any
// other process, which goes on as it would. The variable is cleared so
// that what the shard starts does not take itself for one.
func ServeChild(ctx context.Context, stdout, stderr io.Writer) (code int, served bool) {
	path := os.Getenv(RequestEnv)
	if path == "" {
		return 0, false
	}
	_ = os.Unsetenv(RequestEnv)
	q, err := readRequest(path)
	if err != nil {
		fmt.Fprintln(stderr, "draconform:", err)
		return 2, true
	}
	return q.serve(ctx, stdout, stderr), true
}

// serve runs the request's cases in this process, as one ginkgo suite on
// a provider of its own, and writes the shard's report for the parent.
func (q Request) serve(ctx context.Context, stdout, stderr io.Writer) int {
	opts, err := q.options()
	if err != nil {
		fmt.Fprintln(stderr, "draconform:", err)
		return 2
	}
	local := q.Local
	local.NodeBuilt = q.NodeBuilt
	if len(q.IDs) > 0 {
		local.Part = fmt.Sprintf("%dof%d", q.Part, q.Parts)
	}
	p, err := providers.New(ctx, providers.Config{Name: q.Provider, OutDir: filepath.Join(q.OutDir, q.Target), Log: stdout, Local: local})
	if err != nil {
		fmt.Fprintln(stderr, "draconform:", err)
		return 1
	}
	defer providers.Closer(p, stderr)()
	opts.Targets = []runner.Target{{Name: q.Target, Provider: p}}
	opts.Log = stdout
	passed, err := runner.RunInProcess(opts, runner.Display{Verbose: q.Verbose})
	if err != nil {
		fmt.Fprintln(stderr, "draconform:", err)
		return 2
	}
	if !passed {
		return 1
	}
	return 0
}

// options are the runner's options for the request, its provider aside:
// the specs loaded, the cell's cases (the part's, when split), the profile.
func (q Request) options() (runner.Options, error) {
	b, err := q.load()
	if err != nil {
		return runner.Options{}, err
	}
	cases := plan.Expand(b, plan.Filter{Cells: []string{q.Cell}, Suites: q.Suites})
	if len(q.IDs) > 0 {
		cases = runner.OnlyIDs(cases, q.IDs)
	}
	if len(cases) == 0 {
		return runner.Options{}, fmt.Errorf("shard %s/%s: no case of the plan in it", q.Target, q.Cell)
	}
	opts := runner.Options{Bundle: b, Plan: cases, OutDir: q.OutDir, RunID: q.RunID, CaseTimeout: q.CaseTimeout,
		CompareWith: map[string]string{providers.LocalBinariesTarget: "prototype"}, ShardOut: q.ShardOut,
		Focus: q.Focus, LabelFilter: q.LabelFilter, CaseParallel: q.CaseParallel, Version: q.Version, Command: q.Command,
		FailFast: q.FailFast, Rerun: q.Rerun, Verbose: q.Verbose, KeepOnFailure: q.KeepOnFailure}
	if q.Profile != "" {
		if opts.Profile, err = loader.LoadProfile(q.Profile); err != nil {
			return runner.Options{}, err
		}
	}
	return opts, nil
}

// load reads the specs as the parent did.
func (q Request) load() (*loader.Bundle, error) {
	sfs, ffs, sdir, fdir := specFS(q.SuitesDir, q.FixturesDir)
	return loader.LoadNamed(sfs, sdir, ffs, fdir, steps.Kinds())
}

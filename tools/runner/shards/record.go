package shards

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/draconform/draconform/tools/runner"
)

// RecordFile is what a --shard run writes beside its reports: which share
// of which plan it ran, and its cases' report, for `draconform merge`.
const RecordFile = "shard.json"

// Record is a share's RecordFile.
type Record struct {
	Share Share `json:"share"`
	// PlanDigest (PlanDigest) and SuitesDigest (SuitesDigest) say which
	// plan the share is of: shares of another plan do not merge.
	PlanDigest   string `json:"planDigest"`
	SuitesDigest string `json:"suitesDigest"`
	// Targets and Providers are the run's implementations and the
	// --provider of each; Selection narrowed its plan.
	Targets   []string  `json:"targets"`
	Providers []string  `json:"providers"`
	Selection Selection `json:"selection"`
	// Complete says the whole plan was not narrowed: the merge then holds
	// every planned case, and supports claims.
	Complete bool `json:"complete"`
	// Processes are the plan's processes this share ran, with what each
	// wrote: the merge orders them as one run of the plan would.
	Processes []Process `json:"processes"`
}

// Process is one process of a share and what it wrote, or why it wrote
// nothing.
type Process struct {
	Shard Shard        `json:"shard"`
	Out   runner.Shard `json:"out"`
	Err   string       `json:"err,omitempty"`
}

// record is the Record a --shard run starts with, or nil for a whole run.
func (c *Config) record(processes []Shard) (*Record, error) {
	if c.Share.Count == 0 {
		return nil, nil
	}
	opts := c.Options
	var targets []string
	for _, t := range opts.Targets {
		targets = append(targets, t.Name)
	}
	sel := Selection{Cells: c.Cells, Suites: c.Common.Suites, Focus: opts.Focus, LabelFilter: opts.LabelFilter}
	planDigest, err := PlanDigest(opts.Bundle, opts.Plan, targets, sel)
	if err != nil {
		return nil, err
	}
	suitesDigest, err := SuitesDigest(c.Common.SuitesDir, c.Common.FixturesDir)
	if err != nil {
		return nil, err
	}
	return &Record{Share: c.Share, PlanDigest: planDigest, SuitesDigest: suitesDigest, Targets: targets,
		Providers: c.ProviderNames, Selection: sel, Complete: opts.Complete}, nil
}

func writeRecord(dir string, r Record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", RecordFile, err)
	}
	if err := os.WriteFile(filepath.Join(dir, RecordFile), data, 0o644); err != nil {
		return fmt.Errorf("writing the shard's record: %w", err)
	}
	return nil
}

// ReadRecord reads the record of the --shard run whose output is dir.
func ReadRecord(dir string) (Record, error) {
	var r Record
	data, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return r, fmt.Errorf("%s is no output of draconform run --shard (%s: %w)", dir, RecordFile, err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %w", filepath.Join(dir, RecordFile), err)
	}
	return r, nil
}

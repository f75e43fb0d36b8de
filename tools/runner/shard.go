package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/report"
)

// Shard is what one process of a run split by cell hands its parent: the
// ginkgo report of its cases, what its cell ran on, and where its time went.
// Each shard starts, uses and stops its own cluster, so cells run side by
// side while a cell's own cases (restarts among them) stay in order.
type Shard struct {
	Report  types.Report `json:"report"`
	Cells   []CellFacts  `json:"cells"`
	Header  string       `json:"header"`
	Timings []CellTiming `json:"timings"`
}

// CellTiming is where one cell's wall time went, for benchmarks: bringing
// up its cluster (control plane, node, probe), its cases, stopping it.
type CellTiming struct {
	Target string `json:"target"`
	Cell   string `json:"cell"`
	// Part numbers the process of a cell split over several, from 1; 0
	// when the cell ran whole.
	Part int `json:"part,omitempty"`
	// Began is when the cell's process began its cluster.
	Began        time.Time `json:"began"`
	StartSeconds float64   `json:"startSeconds"`
	// NodeSeconds is the part of StartSeconds spent adding a kubelet node.
	NodeSeconds float64 `json:"nodeSeconds,omitempty"`
	StopSeconds float64 `json:"stopSeconds"`
	// FirstCase is when the cell's first case began: zero if none ran.
	FirstCase time.Time `json:"firstCase,omitempty"`
	// Scheduler is what the cell's scheduler, the last one a restart
	// left, says it spent binding pods, read before the cell stopped.
	Scheduler *cluster.Latency `json:"scheduler,omitempty"`
}

// Name is the cell the timing is of, with its part when the cell was split.
func (t CellTiming) Name() string {
	if t.Part > 0 {
		return fmt.Sprintf("%s/%s (part %d)", t.Target, t.Cell, t.Part)
	}
	return t.Target + "/" + t.Cell
}

func writeShard(path string, sh Shard) error {
	data, err := json.Marshal(sh)
	if err != nil {
		return fmt.Errorf("encoding shard %s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing shard: %w", err)
	}
	return nil
}

// ReadShard reads what a shard process wrote.
func ReadShard(path string) (Shard, error) {
	var sh Shard
	data, err := os.ReadFile(path)
	if err != nil {
		return sh, err
	}
	if err := json.Unmarshal(data, &sh); err != nil {
		return sh, fmt.Errorf("reading shard %s: %w", path, err)
	}
	return sh, nil
}

// MergeReports joins the shards' ginkgo reports into the report of the
// whole run, which began at began and ended now.
func MergeReports(shards []Shard, began time.Time) types.Report {
	var r types.Report
	r.SuiteSucceeded = true
	for i, sh := range shards {
		if i == 0 {
			r.SuitePath, r.SuiteDescription, r.SuiteLabels = sh.Report.SuitePath, sh.Report.SuiteDescription, sh.Report.SuiteLabels
			r.SuiteConfig = sh.Report.SuiteConfig
		}
		r.SuiteSucceeded = r.SuiteSucceeded && sh.Report.SuiteSucceeded
		r.SpecialSuiteFailureReasons = append(r.SpecialSuiteFailureReasons, sh.Report.SpecialSuiteFailureReasons...)
		r.PreRunStats.TotalSpecs += sh.Report.PreRunStats.TotalSpecs
		r.PreRunStats.SpecsThatWillRun += sh.Report.PreRunStats.SpecsThatWillRun
		r.SpecReports = append(r.SpecReports, sh.Report.SpecReports...)
	}
	r.StartTime, r.EndTime = began, time.Now()
	r.RunTime = r.EndTime.Sub(began)
	return r
}

// TimingsFile is where a sharded run writes its cells' timings, beside the
// reports: what `make bench` reads.
const TimingsFile = report.TimingsFile

// RunTimings is what TimingsFile holds.
type RunTimings struct {
	Began    time.Time    `json:"began"`
	Seconds  float64      `json:"seconds"`
	Parallel int          `json:"parallel"`
	Cells    []CellTiming `json:"cells"`
}

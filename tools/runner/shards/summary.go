package shards

import (
	"github.com/draconform/draconform/tools/report"
)

// Summary is what a merged certification bundle records of a share: which
// share of which plan, the processes it ran, and the outcomes they
// reported, so that a reviewer can check again that the shares make one
// plan (CheckSummaries) and find each share's outcomes in the merged ones.
type Summary struct {
	Share        Share
	PlanDigest   string
	SuitesDigest string
	Processes    []string
	Outcomes     []report.Outcome
}

// Summary is r's.
func (r Record) Summary() Summary {
	s := Summary{Share: r.Share, PlanDigest: r.PlanDigest, SuitesDigest: r.SuitesDigest}
	for _, p := range r.Processes {
		s.Processes = append(s.Processes, p.Shard.Name())
		s.Outcomes = append(s.Outcomes, report.Outcomes(p.Out.Report)...)
	}
	return s
}

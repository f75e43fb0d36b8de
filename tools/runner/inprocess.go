package runner

import (
	"slices"
	"time"

	"github.com/go-logr/logr"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/klog/v2"

	"github.com/draconform/draconform/tools/lang/plan"
)

// Display is how ginkgo reports a run in this process: every step, or a
// line a case; in colour or not.
type Display struct{ Verbose, Colour bool }

// RunInProcess runs opts as one ginkgo suite in this process, which the
// CLI needs since it is no test binary: ginkgo runs one suite a process,
// so a run's cells split over processes each call it once. It says whether
// every case passed; an error is a tree that could not be built (a focus or
// label filter that does not parse), before any case ran.
func RunInProcess(opts Options, d Display) (bool, error) {
	// client-go's reflectors log through klog when a watch a step no longer
	// needs is cancelled; that noise would bury the report.
	klog.SetLogger(logr.Discard())
	if err := Register(opts); err != nil {
		return false, err
	}
	suiteCfg, reporterCfg := ginkgo.GinkgoConfiguration()
	suiteCfg.Timeout = 4 * time.Hour
	reporterCfg.Verbose = d.Verbose
	reporterCfg.Succinct = !d.Verbose
	reporterCfg.NoColor = !d.Colour
	t := &failures{}
	gomega.RegisterFailHandler(ginkgo.Fail)
	return ginkgo.RunSpecs(t, "draconform", suiteCfg, reporterCfg) && !t.failed, nil
}

// failures lets RunInProcess drive ginkgo without the testing package.
type failures struct{ failed bool }

func (t *failures) Fail() { t.failed = true }

// OnlyIDs keeps the cases of cases whose id is one of ids: a run split over
// processes gives each part of a cell its cases by id.
func OnlyIDs(cases []plan.Case, ids []string) []plan.Case {
	return slices.DeleteFunc(slices.Clone(cases), func(c plan.Case) bool { return !slices.Contains(ids, c.ID) })
}

package cli

import (
	"github.com/draconform/draconform/tools/runner/shards"
)

// child is what each process of a sharded run is started with besides its
// share of the plan: the run's own specs, suites, profile, binaries and
// display. The runner writes it into the process's request.
func (r runRequest) child() (shards.Common, error) {
	local := r.prov.local
	bins, err := parseBins(r.prov.bins)
	if err != nil {
		return shards.Common{}, err
	}
	local.Bins = bins
	return shards.Common{SuitesDir: r.specs.suites, FixturesDir: r.specs.fixtures, Suites: r.filter.filter().Suites,
		Profile: r.profile, Local: local, Verbose: r.verbose}, nil
}

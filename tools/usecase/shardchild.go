package usecase

import (
	"github.com/draconform/draconform/tools/runner/shards"
)

// child is what each process of a sharded run is started with besides its
// share of the plan: the run's own specs, suites, profile, binaries and
// display. The runner writes it into the process's request.
func (r RunRequest) child() (shards.Common, error) {
	local := r.Providers.Local
	bins, err := parseBins(r.Providers.Bins)
	if err != nil {
		return shards.Common{}, err
	}
	local.Bins = bins
	return shards.Common{SuitesDir: r.Specs.Suites, FixturesDir: r.Specs.Fixtures, Suites: r.Filter.plan().Suites,
		Profile: r.Profile, Local: local, Verbose: r.Verbose}, nil
}

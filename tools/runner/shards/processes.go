package shards

import "github.com/draconform/draconform/tools/runner"

// Processes is how many of a run's cells go at once, each in a process of
// its own with its own cluster, or 0 where the run goes in this process:
// parallel is what the user asked for (0: AutoParallel), and a split needs
// more than one at once on targets that are all Separable. The CLI asks it
// once, before it hands the run to Run or to the runner itself.
func Processes(parallel int, targets []runner.Target) int {
	if parallel == 0 {
		parallel = AutoParallel()
	}
	if parallel > 1 && Separable(targets) {
		return parallel
	}
	return 0
}

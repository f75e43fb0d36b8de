package cluster

// The abilities a cluster may add to the contract are asked here, and only
// here (contract.go says why they stay interfaces): the runner, the steps
// and the benchmarks call these, never a type assertion of their own, so
// that what a cluster can do is looked up in one place a reader finds.

// RunInspectorOf returns c's RunInspector, if it has one.
func RunInspectorOf(c Cluster) (RunInspector, bool) {
	a, ok := c.(RunInspector)
	return a, ok
}

// RestarterOf returns c's Restarter, if it has one.
func RestarterOf(c Cluster) (Restarter, bool) {
	a, ok := c.(Restarter)
	return a, ok
}

// OutagerOf returns c's Outager, if it has one.
func OutagerOf(c Cluster) (Outager, bool) {
	a, ok := c.(Outager)
	return a, ok
}

// BinaryRestarterOf returns c's BinaryRestarter, if it has one.
func BinaryRestarterOf(c Cluster) (BinaryRestarter, bool) {
	a, ok := c.(BinaryRestarter)
	return a, ok
}

// BinariesOf lists the binaries c runs, where it knows them (BinaryLister).
func BinariesOf(c Cluster) []Binary {
	if a, ok := c.(BinaryLister); ok {
		return a.Binaries()
	}
	return nil
}

// SchedulerLatencyOf returns c's SchedulerLatency, if it has one.
func SchedulerLatencyOf(c Cluster) (SchedulerLatency, bool) {
	a, ok := c.(SchedulerLatency)
	return a, ok
}

// SchedulerMetricsOf returns c's SchedulerMetrics, if it has one.
func SchedulerMetricsOf(c Cluster) (SchedulerMetrics, bool) {
	a, ok := c.(SchedulerMetrics)
	return a, ok
}

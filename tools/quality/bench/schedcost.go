package bench

import (
	"fmt"
	"strings"

	"github.com/draconform/draconform/tools/cluster/promtext"
)

// SchedCost is what the KEP's field costs the scheduler, measured on one
// cluster in one run: pods of a class with extendedResourceCapacityRequests
// and pods of an otherwise identical class without it, scheduled in
// alternating batches so that the machine's noise falls on both sides.
// Figures, not assertions: nothing here passes or fails.
type SchedCost struct {
	Date     string `json:"date"`
	Commit   string `json:"commit"`
	Provider string `json:"provider"`
	Cell     string `json:"cell"`
	// Batch is how many pods of one side were created together before
	// the other side's turn; Devices how many shareable devices both
	// classes select.
	Batch   int  `json:"batch"`
	Devices int  `json:"devices"`
	With    Side `json:"withField"`
	Without Side `json:"withoutField"`
}

// Side is one class's pods and the metrics' growth while only they were
// being scheduled.
type Side struct {
	Pods    int         `json:"pods"`
	Batches int         `json:"batches"`
	Delta   SchedCounts `json:"delta"`
	// ClaimsWithCapacity counts this side's ResourceClaims whose request
	// carries a capacity: all of them with the field, none without.
	ClaimsWithCapacity int `json:"claimsWithCapacity"`
}

// Add counts one more batch of pods into s.
func (s *Side) Add(pods int, d SchedCounts) {
	s.Pods += pods
	s.Batches++
	s.Delta = s.Delta.plus(d)
}

// Histo is a histogram's running sum and count.
type Histo struct {
	Sum   float64 `json:"sum"`
	Count float64 `json:"count"`
}

// Mean is the mean observation, 0 for none.
func (h Histo) Mean() float64 {
	if h.Count <= 0 {
		return 0
	}
	return h.Sum / h.Count
}

// SchedCounts are the counters the comparison reads: cumulative as read
// from /metrics, or the growth between two reads.
type SchedCounts struct {
	// Scheduled is kube-scheduler's scheduling_attempt_duration_seconds
	// of the attempts that scheduled their pod; OtherAttempts counts the
	// attempts with any other result (unschedulable, error).
	Scheduled     Histo   `json:"scheduledAttempts"`
	OtherAttempts float64 `json:"otherAttempts"`
	// SLI is pod_scheduling_sli_duration_seconds: queue to bound.
	SLI Histo `json:"sli"`
	// Plugin is plugin_execution_duration_seconds of DynamicResources over
	// every extension point. The scheduler samples it (10% of cycles by
	// default), so its count is of samples, not of pods.
	Plugin Histo `json:"dynamicResourcesPlugin"`
	// PluginPoints split Plugin by extension point, keyed as PluginPoints:
	// a sampled cycle of one side may hold a PreBind, with its API writes,
	// and one of the other side none, so the total alone misleads.
	PluginPoints map[string]Histo `json:"dynamicResourcesPluginPoints,omitempty"`
	// Points are framework_extension_point_duration_seconds of the
	// extension points where DynamicResources does a pod's work, all
	// plugins together but recorded in every cycle (Filter once a cycle,
	// over every node):
	// the unsampled view of the plugin's time, keyed as ExtensionPoints.
	Points map[string]Histo `json:"extensionPoints,omitempty"`
	// ClassRequests are the API server's requests for DeviceClasses, any
	// verb and client; ClaimCreates its ResourceClaim creations.
	ClassRequests float64 `json:"deviceClassRequests"`
	ClaimCreates  float64 `json:"claimCreates"`
}

// The series the comparison reads.
const (
	attemptMetric = "scheduler_scheduling_attempt_duration_seconds"
	sliMetric     = "scheduler_pod_scheduling_sli_duration_seconds"
	pluginMetric  = "scheduler_plugin_execution_duration_seconds"
	requestMetric = "apiserver_request_total"
	pluginName    = "DynamicResources"
	pointMetric   = "scheduler_framework_extension_point_duration_seconds"
)

// PluginPoints are the extension points of DynamicResources whose sampled
// times the comparison shows one by one; the rest share a row.
var PluginPoints = []string{"PreEnqueue", "PreFilter", "Filter", "Score", "Reserve", "PreBind"}

// ExtensionPoints are the points whose times the comparison shows: where
// DynamicResources allocates (PreFilter, Filter) and writes the claim
// (PreBind).
var ExtensionPoints = []string{"PreFilter", "Filter", "PreBind"}

// ReadSchedCounts reads the counters from kube-scheduler's and
// kube-apiserver's /metrics text. A line it cannot parse is skipped (these
// are figures); a series that is absent reads as zero, as a counter not yet
// incremented does.
func ReadSchedCounts(scheduler, apiserver string) (SchedCounts, error) {
	var c SchedCounts
	var allAttempts float64
	for _, r := range []struct {
		text, metric string
		labels       map[string]string
		into         *float64
	}{
		{scheduler, attemptMetric + "_sum", map[string]string{"result": "scheduled"}, &c.Scheduled.Sum},
		{scheduler, attemptMetric + "_count", map[string]string{"result": "scheduled"}, &c.Scheduled.Count},
		{scheduler, attemptMetric + "_count", nil, &allAttempts},
		{scheduler, sliMetric + "_sum", nil, &c.SLI.Sum},
		{scheduler, sliMetric + "_count", nil, &c.SLI.Count},
		{scheduler, pluginMetric + "_sum", map[string]string{"plugin": pluginName}, &c.Plugin.Sum},
		{scheduler, pluginMetric + "_count", map[string]string{"plugin": pluginName}, &c.Plugin.Count},
		{apiserver, requestMetric, map[string]string{"resource": "deviceclasses"}, &c.ClassRequests},
		{apiserver, requestMetric, map[string]string{"resource": "resourceclaims", "verb": "POST"}, &c.ClaimCreates},
	} {
		v, _, err := promtext.SumSkipping(r.text, r.metric, r.labels)
		if err != nil {
			return SchedCounts{}, fmt.Errorf("reading %s: %w", r.metric, err)
		}
		*r.into = v
	}
	c.OtherAttempts = allAttempts - c.Scheduled.Count
	var err error
	if c.Points, err = histosBy(scheduler, pointMetric, nil, ExtensionPoints); err != nil {
		return SchedCounts{}, err
	}
	if c.PluginPoints, err = histosBy(scheduler, pluginMetric, map[string]string{"plugin": pluginName}, PluginPoints); err != nil {
		return SchedCounts{}, err
	}
	return c, nil
}

// histosBy reads metric's histogram for each extension point of points,
// its series filtered by labels besides.
func histosBy(text, metric string, labels map[string]string, points []string) (map[string]Histo, error) {
	out := map[string]Histo{}
	for _, p := range points {
		want := map[string]string{"extension_point": p}
		for k, v := range labels {
			want[k] = v
		}
		sum, _, err := promtext.SumSkipping(text, metric+"_sum", want)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", metric, err)
		}
		count, _, err := promtext.SumSkipping(text, metric+"_count", want)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", metric, err)
		}
		out[p] = Histo{sum, count}
	}
	return out, nil
}

// Since is the growth from before to c.
func (c SchedCounts) Since(before SchedCounts) SchedCounts {
	return SchedCounts{
		Scheduled:     Histo{c.Scheduled.Sum - before.Scheduled.Sum, c.Scheduled.Count - before.Scheduled.Count},
		OtherAttempts: c.OtherAttempts - before.OtherAttempts,
		SLI:           Histo{c.SLI.Sum - before.SLI.Sum, c.SLI.Count - before.SLI.Count},
		Plugin:        Histo{c.Plugin.Sum - before.Plugin.Sum, c.Plugin.Count - before.Plugin.Count},
		ClassRequests: c.ClassRequests - before.ClassRequests,
		ClaimCreates:  c.ClaimCreates - before.ClaimCreates,
		Points:        combine(c.Points, before.Points, -1),
		PluginPoints:  combine(c.PluginPoints, before.PluginPoints, -1),
	}
}

func (c SchedCounts) plus(d SchedCounts) SchedCounts {
	return SchedCounts{
		Scheduled:     Histo{c.Scheduled.Sum + d.Scheduled.Sum, c.Scheduled.Count + d.Scheduled.Count},
		OtherAttempts: c.OtherAttempts + d.OtherAttempts,
		SLI:           Histo{c.SLI.Sum + d.SLI.Sum, c.SLI.Count + d.SLI.Count},
		Plugin:        Histo{c.Plugin.Sum + d.Plugin.Sum, c.Plugin.Count + d.Plugin.Count},
		ClassRequests: c.ClassRequests + d.ClassRequests,
		ClaimCreates:  c.ClaimCreates + d.ClaimCreates,
		Points:        combine(c.Points, d.Points, 1),
		PluginPoints:  combine(c.PluginPoints, d.PluginPoints, 1),
	}
}

// combine is a + sign*b, point by point.
func combine(a, b map[string]Histo, sign float64) map[string]Histo {
	if a == nil && b == nil {
		return nil
	}
	out := map[string]Histo{}
	for k, h := range a {
		out[k] = h
	}
	for k, h := range b {
		o := out[k]
		out[k] = Histo{o.Sum + sign*h.Sum, o.Count + sign*h.Count}
	}
	return out
}

// Ratio is with/without as "1.07×", or "-" where without is zero (a ratio
// of nothing would read as a figure).
func Ratio(with, without float64) string {
	if without == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", with/without)
}

// schedCost renders s as a section of docs/bench.md.
func schedCost(b *strings.Builder, s SchedCost) {
	if !strings.HasSuffix(b.String(), "\n\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "## What the field costs the scheduler (`make bench-scheduler-cost`)\n\n%s, commit %s, provider %s, cell %s: one cluster, %d pods of a class with `extendedResourceCapacityRequests` and %d of the same class without it (same driver, the same %d shareable devices on fake nodes, each pod asking 1 of the class's extended resource), created in alternating batches of %d, each batch scheduled before the next, so that the metrics' growth over a batch is that side's alone.\n\n",
		s.Date, s.Commit, s.Provider, s.Cell, s.With.Pods, s.Without.Pods, s.Devices, s.Batch)
	w, o := s.With.Delta, s.Without.Delta
	b.WriteString("A figure \"n / mean\" is how many (pods, sampled executions or runs) and their mean.\n\n| per side, summed over its batches | with the field | without | with / without |\n|---|---|---|---|\n")
	row := func(name, with, without, ratio string) {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", name, with, without, ratio)
	}
	n := func(f float64) string { return fmt.Sprintf("%.0f", f) }
	row("pods (batches)", fmt.Sprintf("%d (%d)", s.With.Pods, s.With.Batches), fmt.Sprintf("%d (%d)", s.Without.Pods, s.Without.Batches), "")
	row("attempts: scheduled (`result=\"scheduled\"`) / other", n(w.Scheduled.Count)+" / "+n(w.OtherAttempts), n(o.Scheduled.Count)+" / "+n(o.OtherAttempts), "")
	row("mean scheduled attempt", secs(w.Scheduled.Mean()), secs(o.Scheduled.Mean()), Ratio(w.Scheduled.Mean(), o.Scheduled.Mean()))
	row("SLI, queue to bound: n / mean", n(w.SLI.Count)+" / "+secs(w.SLI.Mean()), n(o.SLI.Count)+" / "+secs(o.SLI.Mean()), Ratio(w.SLI.Mean(), o.SLI.Mean()))
	row("DynamicResources, sampled: n / mean", n(w.Plugin.Count)+" / "+micros(w.Plugin.Mean()), n(o.Plugin.Count)+" / "+micros(o.Plugin.Mean()), Ratio(w.Plugin.Mean(), o.Plugin.Mean()))
	row("… its sampled time in all", micros(w.Plugin.Sum), micros(o.Plugin.Sum), Ratio(w.Plugin.Sum, o.Plugin.Sum))
	wRest, oRest := w.Plugin, o.Plugin
	for _, p := range PluginPoints {
		wp, op := w.PluginPoints[p], o.PluginPoints[p]
		wRest = Histo{wRest.Sum - wp.Sum, wRest.Count - wp.Count}
		oRest = Histo{oRest.Sum - op.Sum, oRest.Count - op.Count}
		row("… at "+p, n(wp.Count)+" / "+micros(wp.Mean()), n(op.Count)+" / "+micros(op.Mean()), Ratio(wp.Mean(), op.Mean()))
	}
	row("… at its other points", n(wRest.Count)+" / "+micros(wRest.Mean()), n(oRest.Count)+" / "+micros(oRest.Mean()), Ratio(wRest.Mean(), oRest.Mean()))
	for _, p := range ExtensionPoints {
		wp, op := w.Points[p], o.Points[p]
		row(p+", all plugins, every cycle", n(wp.Count)+" / "+micros(wp.Mean()), n(op.Count)+" / "+micros(op.Mean()), Ratio(wp.Mean(), op.Mean()))
	}
	row("DeviceClass requests (any verb, client)", n(w.ClassRequests), n(o.ClassRequests), Ratio(w.ClassRequests, o.ClassRequests))
	row("ResourceClaims created", n(w.ClaimCreates), n(o.ClaimCreates), Ratio(w.ClaimCreates, o.ClaimCreates))
	row("… of which with a capacity request", fmt.Sprint(s.With.ClaimsWithCapacity), fmt.Sprint(s.Without.ClaimsWithCapacity), "")
	b.WriteString("\nThe scheduler reads DeviceClasses from its informer, so a pod costs no DeviceClass request; the row shows whether that holds. The plugin's figure is sampled (kube-scheduler records `plugin_execution_duration_seconds` for 10% of its cycles by default): its count is of samples, not of pods (a sampled cycle records each extension point it runs, Filter once per node), and a small count makes its ratio noise; a side whose samples hold a PreBind, with its API writes, and the other's none differ in that, not in the field. The extension points' times are recorded in every cycle, all plugins together (Filter once a cycle, over every node); for these pods DynamicResources is the plugin with work to do there. An attempt's time includes its binding, where PreBind writes the claim. The figures are of one run on a machine shared with other work.\n\n")
}

// micros is a short duration, in µs below a millisecond, for the
// plugin's and the extension points' small times.
func micros(f float64) string {
	switch {
	case f == 0:
		return "-"
	case f < 0.001:
		return fmt.Sprintf("%.0f µs", f*1e6)
	case f < 0.1:
		return fmt.Sprintf("%.1f ms", f*1000)
	}
	return secs(f)
}

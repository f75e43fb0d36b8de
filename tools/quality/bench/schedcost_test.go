package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

// schedText is kube-scheduler's /metrics with the series the comparison
// reads beside the ones it must leave out: other results, other plugins,
// other extension points, another profile.
func schedText(scheduled, scheduledSum, unschedulable, sli, sliSum, plugin, pluginSum, preBind, preBindSum float64) string {
	return fmt.Sprintf(`# TYPE scheduler_scheduling_attempt_duration_seconds histogram
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.1"} 1
scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="scheduled"} %[2]g
scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="scheduled"} %[1]g
scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="unschedulable"} 9
scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="unschedulable"} %[3]g
scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="error"} 7
scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="error"} 1
scheduler_pod_scheduling_sli_duration_seconds_sum{attempts="1"} %[5]g
scheduler_pod_scheduling_sli_duration_seconds_count{attempts="1"} %[4]g
scheduler_plugin_execution_duration_seconds_sum{extension_point="Filter",plugin="DynamicResources",status="Success"} %[7]g
scheduler_plugin_execution_duration_seconds_count{extension_point="Filter",plugin="DynamicResources",status="Success"} %[6]g
scheduler_plugin_execution_duration_seconds_sum{extension_point="Filter",plugin="NodeResourcesFit",status="Success"} 50
scheduler_plugin_execution_duration_seconds_count{extension_point="Filter",plugin="NodeResourcesFit",status="Success"} 500
scheduler_framework_extension_point_duration_seconds_sum{extension_point="PreBind",profile="default-scheduler",status="Success"} %[9]g
scheduler_framework_extension_point_duration_seconds_count{extension_point="PreBind",profile="default-scheduler",status="Success"} %[8]g
scheduler_framework_extension_point_duration_seconds_sum{extension_point="Score",profile="default-scheduler",status="Success"} 40
scheduler_framework_extension_point_duration_seconds_count{extension_point="Score",profile="default-scheduler",status="Success"} 400
`, scheduled, scheduledSum, unschedulable, sli, sliSum, plugin, pluginSum, preBind, preBindSum)
}

func apiText(classGets, classWatches, claimPosts float64) string {
	return fmt.Sprintf(`apiserver_request_total{code="200",component="apiserver",group="resource.k8s.io",resource="deviceclasses",scope="cluster",subresource="",verb="GET",version="v1"} %g
apiserver_request_total{code="0",component="apiserver",group="resource.k8s.io",resource="deviceclasses",scope="cluster",subresource="",verb="WATCH",version="v1"} %g
apiserver_request_total{code="201",component="apiserver",group="resource.k8s.io",resource="resourceclaims",scope="namespace",subresource="",verb="POST",version="v1"} %g
apiserver_request_total{code="200",component="apiserver",group="resource.k8s.io",resource="resourceclaims",scope="namespace",subresource="",verb="GET",version="v1"} 77
apiserver_request_total{code="201",component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="POST",version="v1"} 66
apiserver_request_total{code="200",component="apiserver",group="resource.k8s.io",resource="deviceclasses",scope="cluster",subresource="",verb="LIST",version="v1"} 1
`, classGets, classWatches, claimPosts)
}

// The counters come from the wanted series only: a wrong result label, a
// plugin or verb not filtered, would change them.
func TestReadSchedCountsPicksTheWantedSeries(t *testing.T) {
	c, err := ReadSchedCounts(schedText(10, 2, 3, 10, 2.5, 4, 0.004, 10, 0.3), apiText(2, 1, 10))
	if err != nil {
		t.Fatal(err)
	}
	want := SchedCounts{
		Scheduled:     Histo{2, 10},
		OtherAttempts: 4, // 3 unschedulable and 1 error
		SLI:           Histo{2.5, 10},
		Plugin:        Histo{0.004, 4},
		ClassRequests: 4, // GET, WATCH and LIST of deviceclasses
		ClaimCreates:  10,
		Points:        map[string]Histo{"PreFilter": {}, "Filter": {}, "PreBind": {0.3, 10}},
		PluginPoints:  map[string]Histo{"PreEnqueue": {}, "PreFilter": {}, "Filter": {0.004, 4}, "Score": {}, "Reserve": {}, "PreBind": {}},
	}
	if !sameCounts(c, want) {
		t.Errorf("ReadSchedCounts =\n %+v\nwant\n %+v", c, want)
	}
}

// A side's figures are the growth over its own batches, added up.
func TestSideAddsTheGrowthOfEachBatch(t *testing.T) {
	read := func(s, a string) SchedCounts {
		c, err := ReadSchedCounts(s, a)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	t0 := read(schedText(10, 2, 3, 10, 2.5, 4, 0.004, 10, 0.3), apiText(2, 1, 10))
	t1 := read(schedText(15, 2.5, 3, 15, 3.2, 5, 0.0045, 15, 0.4), apiText(2, 1, 15))
	t2 := read(schedText(20, 3.5, 5, 20, 4.4, 5, 0.0045, 20, 0.6), apiText(3, 1, 20))
	var s Side
	s.Add(5, t1.Since(t0))
	s.Add(5, t2.Since(t1))
	want := SchedCounts{
		Scheduled:     Histo{1.5, 10},
		OtherAttempts: 2,
		SLI:           Histo{1.9, 10},
		Plugin:        Histo{0.0005, 1},
		ClassRequests: 1,
		ClaimCreates:  10,
		Points:        map[string]Histo{"PreFilter": {}, "Filter": {}, "PreBind": {0.3, 10}},
		PluginPoints:  map[string]Histo{"PreEnqueue": {}, "PreFilter": {}, "Filter": {0.0005, 1}, "Score": {}, "Reserve": {}, "PreBind": {}},
	}
	if s.Pods != 10 || s.Batches != 2 || !sameCounts(s.Delta, want) {
		t.Errorf("side = %d pods, %d batches, %+v\nwant 10, 2, %+v", s.Pods, s.Batches, s.Delta, want)
	}
	if got := s.Delta.Scheduled.Mean(); !near(got, 0.15) {
		t.Errorf("mean attempt = %v, want 0.15", got)
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		with, without float64
		want          string
	}{{0.2, 0.1, "2.00×"}, {0.1, 0.2, "0.50×"}, {3, 0, "-"}, {0, 0, "-"}} {
		if got := Ratio(tc.with, tc.without); got != tc.want {
			t.Errorf("Ratio(%v, %v) = %q, want %q", tc.with, tc.without, got, tc.want)
		}
	}
}

// The section puts each side's figure in its own column and the ratio
// with/without (not without/with) beside them, with the sample sizes.
func TestSchedCostMarkdownSideBySide(t *testing.T) {
	sc := &SchedCost{Date: "2026-12-05", Commit: "abc", Provider: "prototype", Cell: "capacity-on", Batch: 5, Devices: 64,
		With: Side{Pods: 30, Batches: 6, Delta: SchedCounts{Scheduled: Histo{6, 30}, SLI: Histo{6.3, 30}, Plugin: Histo{0.0003, 3}, ClaimCreates: 30,
			PluginPoints: map[string]Histo{"Filter": {0.0002, 2}},
			Points:       map[string]Histo{"PreBind": {3, 30}}}},
		Without: Side{Pods: 30, Batches: 6, Delta: SchedCounts{Scheduled: Histo{3, 30}, SLI: Histo{3.3, 30}, Plugin: Histo{0.0004, 2}, ClaimCreates: 30,
			Points: map[string]Histo{"PreBind": {1.5, 30}}}},
	}
	md := Markdown(Results{Machine: "m"}.WithSchedCost("m", sc))
	for _, want := range []string{
		"| pods (batches) | 30 (6) | 30 (6) |  |",
		"| attempts: scheduled (`result=\"scheduled\"`) / other | 30 / 0 | 30 / 0 |  |",
		"| mean scheduled attempt | 200 ms | 100 ms | 2.00× |",
		"| SLI, queue to bound: n / mean | 30 / 210 ms | 30 / 110 ms | 1.91× |",
		"| DynamicResources, sampled: n / mean | 3 / 100 µs | 2 / 200 µs | 0.50× |",
		"| … at Filter | 2 / 100 µs | 0 / - | - |",
		"| … at its other points | 1 / 100 µs | 2 / 200 µs | 0.50× |",
		"| PreBind, all plugins, every cycle | 30 / 100 ms | 30 / 50.0 ms | 2.00× |",
		"| DeviceClass requests (any verb, client) | 0 | 0 | - |",
		"| ResourceClaims created | 30 | 30 | 1.00× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func sameCounts(a, b SchedCounts) bool {
	if !near(a.Scheduled.Sum, b.Scheduled.Sum) || a.Scheduled.Count != b.Scheduled.Count || a.OtherAttempts != b.OtherAttempts ||
		!near(a.SLI.Sum, b.SLI.Sum) || a.SLI.Count != b.SLI.Count || !near(a.Plugin.Sum, b.Plugin.Sum) || a.Plugin.Count != b.Plugin.Count ||
		a.ClassRequests != b.ClassRequests || a.ClaimCreates != b.ClaimCreates {
		return false
	}
	return sameHistos(a.Points, b.Points) && sameHistos(a.PluginPoints, b.PluginPoints)
}

func sameHistos(a, b map[string]Histo) bool {
	if len(a) != len(b) {
		return false
	}
	for k, h := range b {
		if !near(a[k].Sum, h.Sum) || a[k].Count != h.Count {
			return false
		}
	}
	return true
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// A claim counts for the side of the pod that owns it, and only where a
// request carries a capacity.
func TestClaimsWithCapacityBySide(t *testing.T) {
	claim := func(name, owner string, capacity bool) runtime.Object {
		req := map[string]any{"name": "container-0-request-0", "exactly": map[string]any{"deviceClassName": "cost-x"}}
		if capacity {
			req["exactly"].(map[string]any)["capacity"] = map[string]any{"requests": map[string]any{"shares": "1"}}
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
			"metadata": map[string]any{"name": name, "namespace": costNamespace, "ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "Pod", "name": owner, "uid": "u"}}},
			"spec":     map[string]any{"devices": map[string]any{"requests": []any{req}}},
		}}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{claimGVR: "ResourceClaimList"},
		claim("a", "with-000", true), claim("b", "with-001", true), claim("c", "with-002", false),
		claim("d", "without-000", false), claim("e", "without-001", true))
	with, without, err := claimsWithCapacity(context.Background(), dyn)
	if err != nil || with != 2 || without != 1 {
		t.Errorf("claimsWithCapacity = %d, %d, %v; want 2 with, 1 without", with, without, err)
	}
}

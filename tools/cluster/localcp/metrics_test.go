package localcp

import "testing"

func TestParseSLISumsEveryLabelSet(t *testing.T) {
	text := `# HELP scheduler_pod_scheduling_sli_duration_seconds [BETA] E2e latency for a pod being scheduled
# TYPE scheduler_pod_scheduling_sli_duration_seconds histogram
scheduler_pod_scheduling_sli_duration_seconds_bucket{attempts="1",le="0.01"} 3
scheduler_pod_scheduling_sli_duration_seconds_sum{attempts="1"} 0.25
scheduler_pod_scheduling_sli_duration_seconds_count{attempts="1"} 5
scheduler_pod_scheduling_sli_duration_seconds_sum{attempts="2"} 1.75
scheduler_pod_scheduling_sli_duration_seconds_count{attempts="2"} 3
scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="scheduled"} 9
`
	l, err := parseSLI(text)
	if err != nil {
		t.Fatal(err)
	}
	if l.Pods != 8 || l.Seconds != 2 {
		t.Errorf("parseSLI = %+v, want 8 pods in 2 s", l)
	}
}

package promtext

import "testing"

const text = `# HELP scheduler_unschedulable_pods The number of unschedulable pods broken down by plugin name.
# TYPE scheduler_unschedulable_pods gauge
scheduler_unschedulable_pods{plugin="DynamicResources",profile="default-scheduler"} 2
scheduler_unschedulable_pods{plugin="NodeResourcesFit",profile="default-scheduler"} 1
scheduler_unschedulable_pods{plugin="DynamicResources",profile="other"} 3 1733400000000
scheduler_pending_pods{queue="active"} 0
`

func TestSumMatchesEveryWantedLabel(t *testing.T) {
	for _, tc := range []struct {
		want   map[string]string
		sum    float64
		series int
	}{
		{map[string]string{"plugin": "DynamicResources"}, 5, 2},
		{map[string]string{"plugin": "DynamicResources", "profile": "other"}, 3, 1},
		{nil, 6, 3},
		{map[string]string{"plugin": "VolumeBinding"}, 0, 0},
	} {
		sum, n, err := Sum(text, "scheduler_unschedulable_pods", tc.want)
		if err != nil || sum != tc.sum || n != tc.series {
			t.Errorf("Sum(%v) = %v over %d series, %v; want %v over %d", tc.want, sum, n, err, tc.sum, tc.series)
		}
	}
}

// A line Sum cannot read fails it, since a verdict may rest on the sum;
// SumSkipping, for figures, passes over it.
func TestAMalformedLine(t *testing.T) {
	bad := text + "scheduler_unschedulable_pods{plugin=\"DynamicResources\" 4\n"
	if _, _, err := Sum(bad, "scheduler_unschedulable_pods", nil); err == nil {
		t.Error("Sum read a malformed line without an error")
	}
	sum, n, err := SumSkipping(bad, "scheduler_unschedulable_pods", nil)
	if err != nil || sum != 6 || n != 3 {
		t.Errorf("SumSkipping = %v over %d series, %v; want 6 over 3", sum, n, err)
	}
}

func TestEscapedLabelValues(t *testing.T) {
	sum, n, err := Sum(`m{k="a\"b\\c\nd"} 1`+"\n", "m", map[string]string{"k": "a\"b\\c\nd"})
	if err != nil || sum != 1 || n != 1 {
		t.Errorf("Sum = %v over %d series, %v; want 1 over 1", sum, n, err)
	}
}

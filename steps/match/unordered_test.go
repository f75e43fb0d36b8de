package match

import (
	"strings"
	"testing"
)

// results builds {results: Unordered(...)} from YAML list elements.
func unorderedResults(t *testing.T, elems string) any {
	t.Helper()
	l := fromYAML(t, elems).([]any)
	return map[string]any{"results": Unordered(l)}
}

func TestSubsetUnordered(t *testing.T) {
	got := `{"results":[{"device":"gpu-2","shares":"1"},{"device":"gpu-0","shares":"1"},{"device":"gpu-1","shares":"1"}]}`
	tests := []struct {
		name   string
		want   string // YAML list of want elements
		got    string
		paths  []string // mismatch paths, in order
		reason string   // text one of the reasons holds
	}{
		{name: "same order", want: "[{device: gpu-2}, {device: gpu-0}, {device: gpu-1}]", got: got},
		{name: "permuted", want: "[{device: gpu-0}, {device: gpu-1}, {device: gpu-2}]", got: got},
		{name: "partial want elements, permuted", want: "[{shares: 1}, {device: gpu-0, shares: 1}, {shares: 1}]", got: got},
		// A greedy pairing would give {shares: 1} gpu-2 and leave {device: gpu-2}
		// nothing: the matching must revisit earlier choices.
		{name: "needs augmenting", want: "[{shares: 1}, {device: gpu-0}, {device: gpu-1}]", got: `{"results":[{"device":"gpu-0","shares":"1"},{"device":"gpu-1"},{"device":"gpu-2","shares":"1"}]}`},
		{name: "one element twice is not two", want: "[{device: gpu-0}, {device: gpu-0}, {device: gpu-1}]", got: got,
			paths: []string{"results[0]", "results[0].device"}, reason: "no element matches want[1]"},
		{name: "value differs", want: "[{device: gpu-0}, {device: gpu-1}, {device: gpu-2, shares: 2}]", got: got,
			paths: []string{"results[0]", "results[0].shares"}, reason: "closest differs"},
		{name: "too short", want: "[{device: gpu-0}, {device: gpu-1}]", got: got,
			paths: []string{"results"}, reason: "length 3, want 2 (in any order)"},
		{name: "too long", want: "[{device: gpu-0}, {device: gpu-1}, {device: gpu-2}, {device: gpu-3}]", got: got,
			paths: []string{"results"}, reason: "length 3, want 4"},
		{name: "not a list", want: "[{device: gpu-0}]", got: `{"results":{"device":"gpu-0"}}`,
			paths: []string{"results"}, reason: "type: got map, want list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := Subset(unorderedResults(t, tt.want), fromJSON(t, tt.got))
			var paths, reasons []string
			for _, m := range ms {
				paths = append(paths, m.Path)
				reasons = append(reasons, m.String())
			}
			if strings.Join(paths, " ") != strings.Join(tt.paths, " ") {
				t.Fatalf("mismatch paths %q, want %q:\n%s", paths, tt.paths, Strings(ms))
			}
			if tt.reason != "" && !strings.Contains(strings.Join(reasons, "\n"), tt.reason) {
				t.Errorf("mismatches do not say %q:\n%s", tt.reason, Strings(ms))
			}
			diff := PrunedDiff(unorderedResults(t, tt.want), fromJSON(t, tt.got))
			if (diff == "") != (len(ms) == 0) {
				t.Errorf("PrunedDiff %q disagrees with %d mismatches", diff, len(ms))
			}
		})
	}
}

// An ordinary list still fixes the order.
func TestSubsetListKeepsOrder(t *testing.T) {
	ms := Subset(fromYAML(t, "results: [{device: gpu-0}, {device: gpu-1}]"), fromJSON(t, `{"results":[{"device":"gpu-1"},{"device":"gpu-0"}]}`))
	if len(ms) != 2 {
		t.Fatalf("want the two positions reported, got:\n%s", Strings(ms))
	}
}

package match

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// fromYAML decodes the way specs are read, so tests see yaml.v3's int,
// map[any]any and time.Time rather than hand-written Go values.
func fromYAML(t *testing.T, src string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatalf("yaml %q: %v", src, err)
	}
	return v
}

// fromJSON decodes with UseNumber, which yields the int64/float64 mix that
// runtime.DefaultUnstructuredConverter produces for API objects.
func fromJSON(t *testing.T, src string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(src)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("json %q: %v", src, err)
	}
	return v
}

const extendedClaimAnnotationPath = `metadata.annotations["resource.kubernetes.io/extended-resource-claim"]`

type subsetCase struct {
	name      string
	want, got string // want is YAML, got is JSON
	expect    []Mismatch
}

// subsetCases are the shapes Subset compares: want in YAML, got in JSON.
var subsetCases = []subsetCase{
	{name: "nested maps equal", want: "spec: {a: {b: x, c: 1}}", got: `{"spec":{"a":{"b":"x","c":1}}}`},
	{name: "extra keys in got ignored", want: "spec: {a: x}", got: `{"kind":"Pod","spec":{"a":"x","b":"y"}}`},
	{name: "missing key", want: "spec: {a: x, b: y}", got: `{"spec":{"a":"x"}}`,
		expect: []Mismatch{{Path: "spec.b", Want: "y", Reason: "missing"}}},
	{name: "missing subtree reported once", want: "spec: {template: {x: 1, y: 2}}", got: `{"spec":{}}`,
		expect: []Mismatch{{Path: "spec.template", Want: map[string]any{"x": int64(1), "y": int64(2)}, Reason: "missing"}}},
	{name: "null in got counts as missing", want: "spec: {a: x}", got: `{"spec":{"a":null}}`,
		expect: []Mismatch{{Path: "spec.a", Want: "x", Reason: "missing"}}},
	{name: "must be absent but present", want: "spec: {nodeName: ~}", got: `{"spec":{"nodeName":"n1"}}`,
		expect: []Mismatch{{Path: "spec.nodeName", Got: "n1", Reason: "must be absent"}}},
	{name: "must be absent and absent", want: "spec: {nodeName: null}", got: `{"spec":{}}`},
	{name: "must be absent and null", want: "spec: {nodeName: null}", got: `{"spec":{"nodeName":null}}`},
	{name: "any with missing", want: "status: {allocation: <any>}", got: `{"status":{}}`,
		expect: []Mismatch{{Path: "status.allocation", Want: "<any>", Reason: "missing"}}},
	{name: "any with null", want: "status: {allocation: <any>}", got: `{"status":{"allocation":null}}`,
		expect: []Mismatch{{Path: "status.allocation", Want: "<any>", Reason: "missing"}}},
	{name: "any with map", want: "status: {allocation: <any>}", got: `{"status":{"allocation":{"x":1}}}`},
	{name: "any with a string", want: "status: {shareID: <any>}", got: `{"status":{"shareID":"a1"}}`},
	{name: "any with zero and false", want: "s: {n: <any>, b: <any>}", got: `{"s":{"n":0,"b":false}}`},
	{name: "any with empty string", want: "status: {shareID: <any>}", got: `{"status":{"shareID":""}}`,
		expect: []Mismatch{{Path: "status.shareID", Want: "<any>", Got: "", Reason: ReasonEmpty}}},
	{name: "any with empty map", want: "status: {allocation: <any>}", got: `{"status":{"allocation":{}}}`,
		expect: []Mismatch{{Path: "status.allocation", Want: "<any>", Got: map[string]any{}, Reason: ReasonEmpty}}},
	{name: "any with empty list", want: "status: {results: <any>}", got: `{"status":{"results":[]}}`,
		expect: []Mismatch{{Path: "status.results", Want: "<any>", Got: []any{}, Reason: ReasonEmpty}}},
	{name: "list length mismatch then common elements", want: "spec: {requests: [{name: a}]}",
		got: `{"spec":{"requests":[{"name":"b"},{"name":"c"}]}}`,
		expect: []Mismatch{
			{Path: "spec.requests", Want: []any{map[string]any{"name": "a"}},
				Got: []any{map[string]any{"name": "b"}, map[string]any{"name": "c"}}, Reason: "length 2, want 1"},
			{Path: "spec.requests[0].name", Want: "a", Got: "b", Reason: "differs"},
		}},
	{name: "list element mismatch", want: "spec: {requests: [{name: a}, {name: b}]}",
		got:    `{"spec":{"requests":[{"name":"a","x":1},{"name":"gpu"}]}}`,
		expect: []Mismatch{{Path: "spec.requests[1].name", Want: "b", Got: "gpu", Reason: "differs"}}},
	{name: "empty want list needs empty got list", want: "items: []", got: `{"items":[1]}`,
		expect: []Mismatch{{Path: "items", Want: []any{}, Got: []any{int64(1)}, Reason: "length 1, want 0"}}},
	{name: "quantity 1 equals 1000m", want: `v: "1"`, got: `{"v":"1000m"}`},
	{name: "quantity 1Gi equals 1073741824", want: `v: "1Gi"`, got: `{"v":"1073741824"}`},
	{name: "quantity 1Gi equals 1024Mi", want: `v: 1Gi`, got: `{"v":"1024Mi"}`},
	{name: "quantity 1 vs 2", want: `v: "1"`, got: `{"v":"2"}`,
		expect: []Mismatch{{Path: "v", Want: "1", Got: "2", Reason: "differs"}}},
	{name: "quantity 1Gi vs 1G", want: `v: 1Gi`, got: `{"v":"1G"}`,
		expect: []Mismatch{{Path: "v", Want: "1Gi", Got: "1G", Reason: "differs"}}},
	{name: "want number vs got quantity string", want: "shares: 1", got: `{"shares":"1"}`},
	{name: "want float vs got milli quantity", want: "cpu: 0.5", got: `{"cpu":"500m"}`},
	{name: "want number vs got different quantity", want: "shares: 1", got: `{"shares":"2"}`,
		expect: []Mismatch{{Path: "shares", Want: int64(1), Got: "2", Reason: "differs"}}},
	{name: "want number vs got non-quantity string", want: "shares: 1", got: `{"shares":"one"}`,
		expect: []Mismatch{{Path: "shares", Want: int64(1), Got: "one", Reason: "type: got string, want number"}}},
	{name: "want quoted string vs got number", want: `port: "80"`, got: `{"port":80}`,
		expect: []Mismatch{{Path: "port", Want: "80", Got: int64(80), Reason: "type: got number, want string"}}},
	{name: "plain strings differ", want: "name: foo", got: `{"name":"bar"}`,
		expect: []Mismatch{{Path: "name", Want: "foo", Got: "bar", Reason: "differs"}}},
	{name: "int equals float", want: "n: 2", got: `{"n":2.0}`},
	{name: "int vs different float", want: "n: 2", got: `{"n":2.5}`,
		expect: []Mismatch{{Path: "n", Want: int64(2), Got: 2.5, Reason: "differs"}}},
	{name: "int beyond float precision", want: "n: 9007199254740993", got: `{"n":9007199254740992.0}`,
		expect: []Mismatch{{Path: "n", Want: int64(9007199254740993), Got: 9007199254740992.0, Reason: "differs"}}},
	{name: "floats equal", want: "n: 1.5", got: `{"n":1.5}`},
	{name: "date-only timestamp", want: "d: 2024-01-02", got: `{"d":"2024-01-02"}`},
	{name: "bool equal", want: "ready: true", got: `{"ready":true}`},
	{name: "bool differs", want: "ready: true", got: `{"ready":false}`,
		expect: []Mismatch{{Path: "ready", Want: true, Got: false, Reason: "differs"}}},
	{name: "bool vs string", want: "ready: true", got: `{"ready":"true"}`,
		expect: []Mismatch{{Path: "ready", Want: true, Got: "true", Reason: "type: got string, want bool"}}},
	{name: "map vs string", want: "spec: {a: 1}", got: `{"spec":"x"}`,
		expect: []Mismatch{{Path: "spec", Want: map[string]any{"a": int64(1)}, Got: "x", Reason: "type: got string, want map"}}},
	{name: "list vs map", want: "l: [1]", got: `{"l":{}}`,
		expect: []Mismatch{{Path: "l", Want: []any{int64(1)}, Got: map[string]any{}, Reason: "type: got map, want list"}}},
	{name: "annotation key with slash", want: "metadata: {annotations: {resource.kubernetes.io/extended-resource-claim: c1}}",
		got:    `{"metadata":{"annotations":{"resource.kubernetes.io/extended-resource-claim":"c2"}}}`,
		expect: []Mismatch{{Path: extendedClaimAnnotationPath, Want: "c1", Got: "c2", Reason: "differs"}}},
	{name: "dashed label key stays bare", want: "labels: {app-name: a}", got: `{"labels":{}}`,
		expect: []Mismatch{{Path: "labels.app-name", Want: "a", Reason: "missing"}}},
	{name: "non-string yaml keys", want: "ports: {80: http}", got: `{"ports":{"80":"http"}}`},
	{name: "timestamp equal", want: "t: 2024-01-02T03:04:05Z", got: `{"t":"2024-01-02T03:04:05Z"}`},
	{name: "timestamp differs", want: "t: 2024-01-02T03:04:05Z", got: `{"t":"2024-01-02T03:04:06Z"}`,
		expect: []Mismatch{{Path: "t", Want: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), Got: "2024-01-02T03:04:06Z", Reason: "differs"}}},
	{name: "root missing", want: "a: 1", got: `null`,
		expect: []Mismatch{{Path: "", Want: map[string]any{"a": int64(1)}, Reason: "missing"}}},
	{name: "sorted by path, indices numerically", want: "b: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\na: {z: 1, y: 1}",
		got: `{"a":{"y":2,"z":2},"b":[0,1,-2,3,4,5,6,7,8,9,-10]}`,
		expect: []Mismatch{
			{Path: "a.y", Want: int64(1), Got: int64(2), Reason: "differs"},
			{Path: "a.z", Want: int64(1), Got: int64(2), Reason: "differs"},
			{Path: "b[2]", Want: int64(2), Got: int64(-2), Reason: "differs"},
			{Path: "b[10]", Want: int64(10), Got: int64(-10), Reason: "differs"},
		}},
}

func TestSubset(t *testing.T) {
	for _, tt := range subsetCases {
		t.Run(tt.name, func(t *testing.T) {
			checkSubset(t, tt)
		})
	}
}

func checkSubset(t *testing.T, tt subsetCase) {
	got := Subset(fromYAML(t, tt.want), fromJSON(t, tt.got))
	if diff := cmp.Diff(tt.expect, got); diff != "" {
		t.Errorf("Subset mismatches (-expect +got):\n%s", diff)
	}
}

// Go-built values (typed slices, other int widths, pointers) go through the
// reflection fallback; plain json.Unmarshal gives float64 for every number.
func TestSubsetNormalisesGoValues(t *testing.T) {
	n := int32(3)
	want := map[string]any{"n": &n, "l": []string{"a", "b"}, "u": uint8(7), "f": float32(0.1)}
	var got any
	if err := json.Unmarshal([]byte(`{"n":3,"l":["a","c"],"u":7,"f":0.1}`), &got); err != nil {
		t.Fatal(err)
	}
	expect := []Mismatch{{Path: "l[1]", Want: "b", Got: "c", Reason: "differs"}}
	if diff := cmp.Diff(expect, Subset(want, got)); diff != "" {
		t.Errorf("(-expect +got):\n%s", diff)
	}
}

func TestMismatchString(t *testing.T) {
	long := make([]any, 40)
	for i := range long {
		long[i] = "abc"
	}
	tests := []struct {
		m    Mismatch
		want string
	}{
		{Mismatch{Path: "spec.b", Want: "y", Reason: "missing"}, `spec.b: missing (want "y")`},
		{Mismatch{Path: "spec.n", Got: int64(1), Reason: "must be absent"}, `spec.n: must be absent (got 1)`},
		{Mismatch{Path: "v", Want: int64(1), Got: "2", Reason: "differs"}, `v: differs (want 1, got "2")`},
		{Mismatch{Path: "", Want: map[string]any{"b": 1, "a": 2}, Got: "x", Reason: "type: got string, want map"},
			`(root): type: got string, want map (want {"a":2,"b":1}, got "x")`},
		{Mismatch{Path: "l", Want: long, Reason: "missing"},
			`l: missing (want ["abc"` + strings.Repeat(`,"abc"`, 19) + `…)`},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("String() =\n%s\nwant\n%s", got, tt.want)
		}
	}
	joined := Strings([]Mismatch{tests[0].m, tests[2].m})
	if want := tests[0].want + "\n" + tests[2].want; joined != want {
		t.Errorf("Strings() = %q, want %q", joined, want)
	}
}

// Both sides decoded from YAML carry time.Time; instants are compared, not
// zones or spelling.
func TestSubsetBothTimestamps(t *testing.T) {
	want := fromYAML(t, "a: 2024-01-02T03:04:05Z\nb: 2024-01-02T03:04:05Z")
	got := fromYAML(t, "a: 2024-01-02T04:04:05+01:00\nb: 2024-01-02T03:04:06Z")
	expect := []Mismatch{{Path: "b", Want: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		Got: time.Date(2024, 1, 2, 3, 4, 6, 0, time.UTC), Reason: "differs"}}
	if diff := cmp.Diff(expect, Subset(want, got)); diff != "" {
		t.Errorf("(-expect +got):\n%s", diff)
	}
}

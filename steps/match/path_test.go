package match

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func key(k string) Segment { return Segment{Key: k} }
func idx(i int) Segment    { return Segment{Index: i, IsIndex: true} }

func TestParsePath(t *testing.T) {
	tests := []struct {
		path string
		want []Segment
	}{
		{"", nil},
		{"spec", []Segment{key("spec")}},
		{"spec.devices[1].capacity.shares.value",
			[]Segment{key("spec"), key("devices"), idx(1), key("capacity"), key("shares"), key("value")}},
		{`metadata.annotations["resource.kubernetes.io/extended-resource-claim"]`,
			[]Segment{key("metadata"), key("annotations"), key("resource.kubernetes.io/extended-resource-claim")}},
		{`[0][12]`, []Segment{idx(0), idx(12)}},
		{`["a.b"].c`, []Segment{key("a.b"), key("c")}},
		{`m["quote \" and ] inside"]`, []Segment{key("m"), key(`quote " and ] inside`)}},
		{`m[""]`, []Segment{key("m"), key("")}},
		{"labels.app-name_2", []Segment{key("labels"), key("app-name_2")}},
	}
	for _, tt := range tests {
		got, err := ParsePath(tt.path)
		if err != nil {
			t.Errorf("ParsePath(%q): %v", tt.path, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParsePath(%q) (-want +got):\n%s", tt.path, diff)
		}
		if back := FormatPath(got); back != tt.path {
			t.Errorf("FormatPath(ParsePath(%q)) = %q", tt.path, back)
		}
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct {
		path, errPart string
	}{
		{".spec", `want identifier, got ""`},
		{"spec.", `want identifier, got ""`},
		{"spec..x", `want identifier, got ""`},
		{"spec.[0]", `want identifier, got ""`},
		{"spec.a/b", `want identifier, got "a/b"`},
		{"spec.1x", `want identifier, got "1x"`},
		{"spec.-x", `want identifier, got "-x"`},
		{"l[0]x", `want '.' or '[', got 'x'`},
		{"l[", "missing ']'"},
		{"l[]", `index "" is not a non-negative integer`},
		{"l[-1]", `index "-1" is not a non-negative integer`},
		{"l[a]", `index "a" is not a non-negative integer`},
		{"l[99999999999999999999]", `index "99999999999999999999": `},
		{`m["abc]`, "unterminated quoted key"},
		{`m["abc"`, "unterminated quoted key"},
		{`m["\q"]`, `bad quoted key "\q"`},
	}
	for _, tt := range tests {
		segs, err := ParsePath(tt.path)
		if err == nil {
			t.Errorf("ParsePath(%q) = %v, want error containing %q", tt.path, segs, tt.errPart)
			continue
		}
		if !strings.Contains(err.Error(), tt.errPart) {
			t.Errorf("ParsePath(%q) error %q, want it to contain %q", tt.path, err, tt.errPart)
		}
	}
}

func TestSegmentString(t *testing.T) {
	tests := []struct {
		seg  Segment
		want string
	}{
		{key("spec"), ".spec"},
		{key("app-name"), ".app-name"},
		{key("a.b"), `["a.b"]`},
		{key("x/y"), `["x/y"]`},
		{key("0"), `["0"]`},
		{key(""), `[""]`},
		{key("with space"), `["with space"]`},
		{idx(3), "[3]"},
	}
	for _, tt := range tests {
		if got := tt.seg.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.seg, got, tt.want)
		}
	}
}

func TestLookup(t *testing.T) {
	tree := fromYAML(t, `
metadata:
  annotations:
    resource.kubernetes.io/extended-resource-claim: claim-1
spec:
  devices:
  - name: a
  - name: b
    capacity: {shares: {value: 1}}
  nodeName: null
ports: {80: http}
`)
	tests := []struct {
		path   string
		want   any
		exists bool
	}{
		{"spec.devices[1].capacity.shares.value", int64(1), true},
		{`metadata.annotations["resource.kubernetes.io/extended-resource-claim"]`, "claim-1", true},
		{"spec.devices[0]", map[string]any{"name": "a"}, true},
		{"spec.nodeName", nil, true},
		{`ports["80"]`, "http", true},
		{"spec.missing", nil, false},
		{"spec.devices[2]", nil, false},
		{"spec.devices.name", nil, false},
		{"spec[0]", nil, false},
		{"spec.devices[0].name.deeper", nil, false},
		{"spec..bad", nil, false},
	}
	root, ok := Lookup(fromYAML(t, "a: [1]"), "")
	if diff := cmp.Diff(map[string]any{"a": []any{int64(1)}}, root); !ok || diff != "" {
		t.Errorf("Lookup of the root: exists %v, (-want +got):\n%s", ok, diff)
	}
	for _, tt := range tests {
		got, ok := Lookup(tree, tt.path)
		if ok != tt.exists {
			t.Errorf("Lookup(%q) exists = %v, want %v", tt.path, ok, tt.exists)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Lookup(%q) (-want +got):\n%s", tt.path, diff)
		}
	}
}

// Every path Subset reports must lead Lookup back to the got value, or the
// two halves of the API would disagree on syntax.
func TestMismatchPathsRoundTrip(t *testing.T) {
	want := fromYAML(t, `{a.b: {"x/y": [1, {"": 2, "k k": 3}]}}`)
	got := fromJSON(t, `{"a.b":{"x/y":[0,{"":5,"k k":6}]}}`)
	ms := Subset(want, got)
	var paths []string
	for _, m := range ms {
		paths = append(paths, m.Path)
	}
	wantPaths := []string{`["a.b"]["x/y"][0]`, `["a.b"]["x/y"][1][""]`, `["a.b"]["x/y"][1]["k k"]`}
	if diff := cmp.Diff(wantPaths, paths); diff != "" {
		t.Fatalf("paths (-want +got):\n%s", diff)
	}
	for _, m := range ms {
		v, ok := Lookup(got, m.Path)
		if !ok || !cmp.Equal(v, m.Got) {
			t.Errorf("Lookup(%q) = %v, %v; want %v", m.Path, v, ok, m.Got)
		}
	}
}

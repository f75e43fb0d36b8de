package plan_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"gopkg.in/yaml.v3"
)

func digests(t *testing.T, s, f fs.FS) map[string]string {
	t.Helper()
	b, err := loader.Load(s, f, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, pc := range plan.Expand(b, plan.Filter{}) {
		d, err := plan.Digest(b, pc)
		if err != nil {
			t.Fatal(err)
		}
		out[pc.ID] = d
	}
	return out
}

// changed lists the ids whose digest differs between two plans, and the
// ids of either that the other lacks.
func changed(before, after map[string]string) []string {
	var out []string
	for id, d := range after {
		if before[id] != d {
			out = append(out, id)
		}
	}
	for id := range before {
		if _, ok := after[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// A small bundle of its own, so that the test does not follow the shipped
// suites' text.
const (
	digestCells = `apiVersion: draconform.dev/v1alpha1
kind: Cells
cells:
- name: c1
  description: one cell
  gates: {}
- name: c2
  description: another
  gates: {kube-apiserver: {DRAConsumableCapacity: false}}
`
	digestSuite = `apiVersion: draconform.dev/v1alpha1
kind: Suite
name: s
description: two cases
cells: [c1, c2]
cases:
- id: uses-slice
  title: The first case.
  kep: [Goals]
  given:
  - {fixture: slice}
  steps:
  - assert: {ref: resourceslice/slice, object: {spec: {driver: d}}, within: 2s}

- id: uses-node
  title: The second case.
  kep: [Goals]
  given:
  - {fixture: node, name: n1}
  steps:
  - assert: {ref: node/n1, object: {metadata: {name: "<any>"}}, within: 2s}
`
	digestFixtures = `apiVersion: draconform.dev/v1alpha1
kind: Fixture
name: slice
description: a slice
params: {name: slice, size: 100Gi}
object:
  apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: "${prefix}-${name}"}
  spec: {driver: d, nodeName: x, pool: {name: p, generation: 1, resourceSliceCount: 1}, devices: [{name: a, capacity: {size: {value: "${size}"}}}]}
---
apiVersion: draconform.dev/v1alpha1
kind: Fixture
name: node
description: a node
params: {name: n1}
object:
  apiVersion: v1
  kind: Node
  metadata: {name: "${prefix}-${name}"}
`
)

// digestsOf are the digests of a bundle of the cells above, one suite and
// one fixture file.
func digestsOf(t *testing.T, suite, fixtures string) map[string]string {
	t.Helper()
	return digests(t, fstest.MapFS{"cells.yaml": {Data: []byte(digestCells)}, "s.yaml": {Data: []byte(suite)}},
		fstest.MapFS{"f.yaml": {Data: []byte(fixtures)}})
}

func TestDigestFollowsWhatACaseRuns(t *testing.T) {
	base := digestsOf(t, digestSuite, digestFixtures)
	if len(base) != 4 {
		t.Fatalf("planned %v", base)
	}
	seen := map[string]string{}
	for id, d := range base {
		if other, ok := seen[d]; ok {
			t.Errorf("%s and %s share a digest", id, other)
		}
		seen[d] = id
	}
	replace := func(text, old, new string) string {
		t.Helper()
		if strings.Count(text, old) != 1 {
			t.Fatalf("%q occurs %d times", old, strings.Count(text, old))
		}
		return strings.Replace(text, old, new, 1)
	}
	t.Run("prose and position keep it", func(t *testing.T) {
		s := replace(digestSuite, "The first case.", "The first case, reworded.")
		s = replace(s, "- id: uses-slice\n", "# a comment moves every case below\n\n- id: uses-slice\n")
		if got := changed(base, digestsOf(t, s, digestFixtures)); len(got) != 0 {
			t.Errorf("rewording and moving a case changed %v", got)
		}
	})
	for _, tc := range []struct{ name, suite, fixtures string }{
		{"a step changes only its case", replace(digestSuite, "{spec: {driver: d}}, within: 2s", "{spec: {driver: d}}, within: 3s"), digestFixtures},
		{"a fixture changes the cases that use it", digestSuite, replace(digestFixtures, "size: 100Gi", "size: 200Gi")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := changed(base, digestsOf(t, tc.suite, tc.fixtures))
			slices.Sort(got)
			if strings.Join(got, ",") != "s/uses-slice@c1,s/uses-slice@c2" {
				t.Errorf("changed %v, want only uses-slice's", got)
			}
		})
	}
	t.Run("the shipped suites have a digest each", func(t *testing.T) {
		all := digests(t, suites.FS, fixtures.FS)
		if len(all) < 100 {
			t.Errorf("only %d planned cases", len(all))
		}
	})
}

// A struct field left zero is the same as no field: a new step type's
// field, empty in every case, changes no digest. A zero written inside an
// object is kept.
func TestCanonicalDropsEmptyFields(t *testing.T) {
	type before struct {
		A string    `yaml:"a"`
		L []string  `yaml:"l"`
		O yaml.Node `yaml:"o"`
		P spec.Pos  `yaml:"-"`
	}
	type after struct {
		A   string           `yaml:"a"`
		L   []string         `yaml:"l"`
		O   yaml.Node        `yaml:"o"`
		P   spec.Pos         `yaml:"-"`
		New *struct{ X int } `yaml:"new"`
		N   int              `yaml:"n"`
		B   bool             `yaml:"b"`
	}
	node := func(src string) yaml.Node {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(src), &n); err != nil {
			t.Fatal(err)
		}
		return *n.Content[0]
	}
	canon := func(v any) string {
		t.Helper()
		data, err := plan.Canonical(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	x := canon(before{A: "x", L: []string{"", "y"}, O: node("{shares: 0, b: 1}"), P: spec.Pos{File: "a", Line: 1}})
	if y := canon(after{A: "x", L: []string{"", "y"}, O: node("# moved\n{b: 1, shares: 0}"), P: spec.Pos{File: "a", Line: 9}}); x != y {
		t.Errorf("the same content with empty fields added, moved and reordered:\n%s\n%s", x, y)
	}
	for name, v := range map[string]any{
		"a list item dropped":         after{A: "x", L: []string{"y"}, O: node("{shares: 0, b: 1}")},
		"a zero in an object dropped": after{A: "x", L: []string{"", "y"}, O: node("{b: 1}")},
		"a field set":                 after{A: "x", L: []string{"", "y"}, O: node("{shares: 0, b: 1}"), N: 1},
	} {
		if got := canon(v); got == x {
			t.Errorf("%s changed nothing: %s", name, got)
		}
	}
}

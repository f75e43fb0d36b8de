package plan_test

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/loader"
	"github.com/draconform/draconform/tools/plan"
	"github.com/draconform/draconform/tools/spec"
	"gopkg.in/yaml.v3"
)

// copyFS is an editable copy of an embedded tree's top-level YAML files.
func copyFS(t *testing.T, tree fs.FS) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	files, err := fs.Glob(tree, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := fs.ReadFile(tree, f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = &fstest.MapFile{Data: data}
	}
	return out
}

func digests(t *testing.T, s, f fs.FS) map[string]string {
	t.Helper()
	b, err := loader.Load(s, f)
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

func edit(t *testing.T, m fstest.MapFS, file, old, new string) {
	t.Helper()
	text := string(m[file].Data)
	if strings.Count(text, old) != 1 {
		t.Fatalf("%s: %q occurs %d times", file, old, strings.Count(text, old))
	}
	m[file] = &fstest.MapFile{Data: []byte(strings.Replace(text, old, new, 1))}
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

func TestDigestFollowsWhatACaseRuns(t *testing.T) {
	base := digests(t, suites.FS, fixtures.FS)
	if len(base) < 100 {
		t.Fatalf("only %d planned cases", len(base))
	}
	seen := map[string]string{}
	for id, d := range base {
		if other, ok := seen[d]; ok {
			t.Errorf("%s and %s share a digest", id, other)
		}
		seen[d] = id
	}
	const file = "kep6406-scheduling.yaml"
	const id = "kep6406-scheduling/two-pods-share-one-device@capacity-on"
	if _, ok := base[id]; !ok {
		t.Fatalf("%s is not planned", id)
	}

	t.Run("prose and position keep it", func(t *testing.T) {
		s := copyFS(t, suites.FS)
		edit(t, s, file, "Two 2-share pods fit only", "Two pods asking for two shares each fit only")
		edit(t, s, file, "- id: two-pods-share-one-device\n", "# a comment moves every case below\n\n- id: two-pods-share-one-device\n")
		if got := changed(base, digests(t, s, fixtures.FS)); len(got) != 0 {
			t.Errorf("rewording and moving a case changed %v", got)
		}
	})
	t.Run("a step changes only its case", func(t *testing.T) {
		s := copyFS(t, suites.FS)
		edit(t, s, file, "  - expectNoClaim: {pod: p3, ever: true, for: 2s}\n\n- id: story-2-nic-bandwidth", "  - expectNoClaim: {pod: p3, ever: true, for: 3s}\n\n- id: story-2-nic-bandwidth")
		got := changed(base, digests(t, s, fixtures.FS))
		if len(got) != 1 || got[0] != id {
			t.Errorf("changing one step of %s changed %v", id, got)
		}
	})
	t.Run("a fixture changes the cases that use it", func(t *testing.T) {
		f := copyFS(t, fixtures.FS)
		edit(t, f, "resourceslices.yaml", "  bandwidth: 100Gi\n", "  bandwidth: 200Gi\n")
		got := changed(base, digests(t, suites.FS, f))
		if len(got) == 0 {
			t.Fatal("a fixture's default changed no case")
		}
		for _, id := range got {
			if !strings.Contains(id, "nic") && !strings.Contains(id, "several") {
				t.Errorf("slice-shared-nic changed %s, which does not use it", id)
			}
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

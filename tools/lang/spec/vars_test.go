package spec

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func node(t *testing.T, src string) yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	return *n.Content[0]
}

func TestExpandNodeKeepsTypesOfWholeReferences(t *testing.T) {
	base := NewScope(map[string]string{"prefix": "dc-x"})
	scope, err := base.With(Vars{
		"requests": node(t, "{shares: \"2\"}"),
		"driver":   node(t, "${prefix}.example"),
		"count":    node(t, "3"),
	})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := node(t, "a: ${requests}\nb: ${driver}/gpu\nc: ${count}\nd: \"${count}\"\n${driver}: k\n")
	out, err := ExpandNode(&tmpl, scope.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := out.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if m, ok := got["a"].(map[string]any); !ok || m["shares"] != "2" {
		t.Errorf("a = %#v, want the map {shares: \"2\"}", got["a"])
	}
	if got["b"] != "dc-x.example/gpu" {
		t.Errorf("b = %#v: a var defined with ${prefix} must be expanded where it is defined", got["b"])
	}
	if got["c"] != 3 {
		t.Errorf("c = %#v, want the number 3", got["c"])
	}
	if got["d"] != "3" {
		t.Errorf("d = %#v, want the string \"3\" (quoted reference)", got["d"])
	}
	if got["dc-x.example"] != "k" {
		t.Errorf("keys are not expanded: %#v", got)
	}
}

func TestExpandReportsUndefinedAndNonScalar(t *testing.T) {
	scope, _ := NewScope(nil).With(Vars{"m": node(t, "{a: 1}")})
	if _, err := Expand("x-${nope}", scope.Lookup); err == nil || err.Error() != "undefined variable ${nope}" {
		t.Errorf("undefined: %v", err)
	}
	if _, err := Expand("x-${m}", scope.Lookup); err == nil {
		t.Error("a map inside a string must be an error")
	}
	tmpl := node(t, "a:\n  b: ${nope}\n")
	if _, err := ExpandNode(&tmpl, scope.Lookup); err == nil || err.Error() != "line 2: undefined variable ${nope}" {
		t.Errorf("ExpandNode: %v", err)
	}
}

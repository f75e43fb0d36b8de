package spec

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// flowVars parses "name: value" lines into Vars, as a suite holds them.
func flowVars(t *testing.T, doc string) Vars {
	t.Helper()
	var v Vars
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func repeat(item string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "]"
}

// Levels of variables that repeat the level before multiply: the suite's
// a (10^4 items), the case's b (10^4 copies of a) would be 10^8 nodes, more
// memory than the machine has. Expanding them at run time is refused at
// the line of the reference, quickly, whichever way the levels are built.
func TestExpansionAtRunTimeIsBounded(t *testing.T) {
	suite, err := NewScope(map[string]string{"prefix": "p"}).With(flowVars(t, "a: "+repeat("x", 10_000)+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = suite.With(flowVars(t, "\n\nb: "+repeat(`"${a}"`, 10_000)+"\n"))
	if want := "variable b: line 3: variables expand to more than 1048576 YAML nodes"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("case vars: got %v, want %s", err, want)
	}
	// The same in one template, as a step's object expands.
	tmpl := flowVars(t, "o: "+repeat(`"${a}"`, 10_000)+"\n")["o"]
	if _, err := suite.ExpandNode(&tmpl); err == nil || !strings.Contains(err.Error(), "line 1: variables expand to more than") {
		t.Errorf("template: got %v", err)
	}
	// A string of references to a long value.
	long, err := NewScope(map[string]string{"s": strings.Repeat("x", 1<<20)}).With(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := long.String(strings.Repeat("${s}", 100)); err == nil || !strings.Contains(err.Error(), "expands to more than 64 MiB") {
		t.Errorf("string: got %v", err)
	}
	// What fits is expanded whole.
	b, err := suite.With(flowVars(t, "b: "+repeat(`"${a}"`, 10)+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := b.Lookup("b"); len(v.Content) != 10 || len(v.Content[9].Content) != 10_000 {
		t.Errorf("b has %d items", len(v.Content))
	}
}

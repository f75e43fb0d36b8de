package loader

import (
	"testing"
	"testing/fstest"
)

func TestDigestFollowsEveryByte(t *testing.T) {
	suites := fstest.MapFS{"a.yaml": {Data: []byte("kind: Suite\n")}}
	fixtures := fstest.MapFS{"f.yaml": {Data: []byte("kind: Fixture\n")}}
	base, err := Digest(suites, fixtures)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Digest(suites, fixtures); again != base {
		t.Error("the same trees gave two digests")
	}
	for name, trees := range map[string][2]fstest.MapFS{
		"edited":  {{"a.yaml": {Data: []byte("kind: Suite \n")}}, fixtures},
		"renamed": {{"b.yaml": {Data: []byte("kind: Suite\n")}}, fixtures},
		"moved":   {fixtures, suites},
		"added":   {{"a.yaml": suites["a.yaml"], "c.yaml": {Data: nil}}, fixtures},
	} {
		if d, _ := Digest(trees[0], trees[1]); d == base {
			t.Errorf("%s: digest unchanged", name)
		}
	}
}

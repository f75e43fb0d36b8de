package steps_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

// Whichever two of three pods are bound, the step passes and names them;
// a third bound at once or later, or too few bound, fails it.
func TestExpectSomeScheduled(t *testing.T) {
	some := func() *spec.ExpectSomeScheduled {
		return &spec.ExpectSomeScheduled{Pods: []string{"p1", "p2", "p3"}, Count: 2, Bound: []string{"a", "b"}, Pending: []string{"w"},
			Within: spec.Duration(time.Second), For: spec.Duration(time.Second)}
	}
	tests := []struct {
		name  string
		nodes [3]string
		later int // index of a pod bound half a second in, or -1
		fails []string
	}{
		{name: "the first two", nodes: [3]string{"n1", "n1", ""}, later: -1},
		{name: "another two", nodes: [3]string{"", "n1", "n1"}, later: -1},
		{name: "all three", nodes: [3]string{"n1", "n1", "n1"}, later: -1, fails: []string{"2 of pods p1, p2, p3 must be bound, but 3 are"}},
		{name: "one", nodes: [3]string{"n1", "", ""}, later: -1, fails: []string{"must be bound within 1s, but 1 are", "p2 unbound"}},
		{name: "the third bound during the hold", nodes: [3]string{"n1", "", "n1"}, later: 1, fails: []string{"only 2 of pods", "but within 1s of that 3 are"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			var pods []*steps.Created
			for i, name := range []string{"p1", "p2", "p3"} {
				pods = append(pods, f.SeedYAML(name, podYAML(name, tt.nodes[i], "")))
			}
			if tt.later >= 0 {
				f.Later(500*time.Millisecond, func() {
					f.Modify(pods[tt.later], func(u *unstructured.Unstructured) {
						_ = unstructured.SetNestedField(u.Object, "n1", "spec", "nodeName")
					})
				})
			}
			err := run(t, f, &steps.ExpectSomeScheduled{Spec: some()})
			check(t, err, tt.fails)
			if tt.fails != nil {
				return
			}
			// The names point at the pods found bound and unbound.
			for alias, want := range map[string]string{"a": "", "w": ""} {
				c, err := f.Env.Lookup(spec.RefOf("Pod", alias))
				if err != nil {
					t.Fatalf("alias %s: %v", alias, err)
				}
				node, _, _ := unstructured.NestedString(f.Get(c).Object, "spec", "nodeName")
				if (alias == "w") != (node == want) {
					t.Errorf("alias %s names a pod on node %q", alias, node)
				}
			}
		})
	}
}

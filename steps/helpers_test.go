package steps_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
)

// short bounds the waits of negative cases; positive cases must return as
// soon as the state is there, so they get the same bound and never use it.
const short = 300 * time.Millisecond

// Names the scenarios share.
const (
	node1 = stepstest.Prefix + "-n1"
	node2 = stepstest.Prefix + "-n2"
	gpu   = stepstest.Domain + "/gpu"
)

// run runs a step with an overall bound far above any step's own, so a hung
// watch fails the test instead of the test binary.
func run(t *testing.T, f *stepstest.Fake, st steps.Step) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return st.Run(ctx, f.Env)
}

func mustPass(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("the step must pass, but failed:\n%v", err)
	}
}

// mustFail checks the step failed and its message names every fact given.
func mustFail(t *testing.T, err error, facts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the step must fail (it would report %q), but passed", facts)
	}
	for _, s := range facts {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the failure does not mention %q:\n%v", s, err)
		}
	}
}

// check is mustPass when facts is nil, else mustFail.
func check(t *testing.T, err error, facts []string) {
	t.Helper()
	if facts == nil {
		mustPass(t, err)
		return
	}
	mustFail(t, err, facts...)
}

// decode reads a spec type from a YAML snippet, as the loader would.
func decode[T any](t *testing.T, src string) *T {
	t.Helper()
	v := new(T)
	if err := yaml.Unmarshal([]byte(src), v); err != nil {
		t.Fatalf("decoding %q: %v", src, err)
	}
	return v
}

// podYAML is a pod of the case; extra is YAML spliced in at top level
// (indented by the caller), e.g. a status.
func podYAML(name, nodeName, extra string) string {
	s := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
  containers: [{name: main, image: pause}]
`, name)
	if nodeName != "" {
		s += "  nodeName: " + nodeName + "\n"
	}
	return s + extra
}

// set sets a field of an object at a dotted path.
func set(t *testing.T, u *unstructured.Unstructured, value any, path ...string) {
	t.Helper()
	if err := unstructured.SetNestedField(u.Object, value, path...); err != nil {
		t.Fatalf("setting %v: %v", path, err)
	}
}

// bindLater binds a stored pod to a node after d, as the scheduler would.
func bindLater(f *stepstest.Fake, c *steps.Created, d time.Duration, node string) {
	f.Later(d, func() {
		f.Modify(c, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, node, "spec", "nodeName")
		})
	})
}

// tree parses YAML into the JSON-like values objects hold.
func tree(t *testing.T, src string) map[string]any {
	var out map[string]any
	if err := sigsyaml.Unmarshal([]byte(src), &out); err != nil {
		t.Errorf("parsing %q: %v", src, err)
	}
	return out
}

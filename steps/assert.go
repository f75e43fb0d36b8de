package steps

import (
	"context"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/draconform/draconform/steps/match"
	"github.com/draconform/draconform/tools/lang/spec"
)

// Assert waits until a stored object contains a partial tree.
type Assert struct{ Spec *spec.Assert }

// Describe implements Step.
func (a *Assert) Describe() string { return "assert " + string(a.Spec.Ref) }

// Run implements Step.
func (a *Assert) Run(ctx context.Context, env *Env) error {
	c, err := env.Lookup(a.Spec.Ref)
	if err != nil {
		return err
	}
	want, err := expandTree(env, &a.Spec.Object)
	if err != nil {
		return fmt.Errorf("assert %s: %w", a.Spec.Ref, err)
	}
	if a.Spec.APIVersion != "" {
		gv, err := schema.ParseGroupVersion(a.Spec.APIVersion)
		if err != nil {
			return fmt.Errorf("assert %s: apiVersion: %w", a.Spec.Ref, err)
		}
		other := *c
		other.GVR = gv.WithResource(c.GVR.Resource)
		c = &other
	}
	return matchObject(ctx, env, c, want, a.Spec.Within.Or(defaultAssertWithin))
}

// matchObject waits until the stored object c contains want, and otherwise
// reports the field paths that differ and a diff pruned to what was asserted.
func matchObject(ctx context.Context, env *Env, c *Created, want any, within time.Duration) error {
	return watchUntil(ctx, c.Resource(env.Clients.Dyn), c.Object.GetName(), within, func(u *unstructured.Unstructured) error {
		return subsetOf(want, u)
	})
}

func subsetOf(want any, u *unstructured.Unstructured) error {
	if ms := match.Subset(want, u.Object); len(ms) > 0 {
		return notYet{fmt.Sprintf("%s %s does not match:\n%s\n%s", u.GetKind(), u.GetName(), indent(match.Strings(ms)), indent(match.PrunedDiff(want, u.Object)))}
	}
	return nil
}

// expandTree substitutes the case's variables in a YAML partial tree and
// decodes it into the JSON-like values the matcher compares.
func expandTree(env *Env, n *yaml.Node) (any, error) {
	e, err := env.Scope().ExpandNode(n)
	if err != nil {
		return nil, err
	}
	var out any
	if err := e.Decode(&out); err != nil {
		return nil, err
	}
	return normalise(out), nil
}

func checkAssert(c Checker, st *spec.Step) {
	c.Need(st.Pos, st.Assert.Ref)
	if !spec.IsSet(st.Assert.Object) {
		c.Problem(st.Pos, "", "assert needs object: (the partial tree to match)")
	}
	c.Vars(&st.Assert.Object)
}

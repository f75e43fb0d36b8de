package spec

import (
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"
)

// Builtins are the variables the runner always defines for a case instance:
// prefix is unique per run, case and cell (names of cluster-scoped objects),
// domain and driver derive from it (driver and extended resource names),
// namespace is the case's own namespace and run is the run id.
var Builtins = []string{"prefix", "domain", "driver", "namespace", "run"}

var varRef = regexp.MustCompile(`\$\{([A-Za-z][A-Za-z0-9_]*)\}`)

// VarRefs lists the variable names a string refers to.
func VarRefs(s string) []string {
	var out []string
	for _, m := range varRef.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// NodeRef is a variable reference inside a YAML tree, with its line.
type NodeRef struct {
	Name string
	Line int
}

// NodeVarRefs lists every variable reference in a YAML tree (keys and values).
func NodeVarRefs(n *yaml.Node) []NodeRef {
	var out []NodeRef
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		if n.Kind == yaml.ScalarNode {
			for _, name := range VarRefs(n.Value) {
				out = append(out, NodeRef{Name: name, Line: n.Line})
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return out
}

// Lookup resolves a variable to its YAML value.
type Lookup func(name string) (*yaml.Node, bool)

// Expand substitutes variables in a string; each value must be a scalar.
func Expand(s string, lookup Lookup) (string, error) {
	var firstErr error
	out := varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-1]
		v, ok := lookup(name)
		if !ok {
			if firstErr == nil {
				firstErr = fmt.Errorf("undefined variable ${%s}", name)
			}
			return ref
		}
		if v.Kind != yaml.ScalarNode {
			if firstErr == nil {
				firstErr = fmt.Errorf("variable ${%s} is not a scalar and cannot be part of a string", name)
			}
			return ref
		}
		return v.Value
	})
	return out, firstErr
}

// ExpandNode returns a deep copy of n with variables substituted. A scalar that
// is exactly one reference takes the variable's whole value, type included, so
// a fixture can take a number, a list or a map as a parameter.
func ExpandNode(n *yaml.Node, lookup Lookup) (*yaml.Node, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind == yaml.ScalarNode {
		if m := varRef.FindStringSubmatch(n.Value); m != nil && m[0] == n.Value {
			v, ok := lookup(m[1])
			if !ok {
				return nil, fmt.Errorf("line %d: undefined variable ${%s}", n.Line, m[1])
			}
			// Values are expanded when the variable is defined (see Scope),
			// so they are used as they are: no cycles to guard against.
			expanded := deepCopy(v)
			if expanded.Kind == yaml.ScalarNode && n.Style != 0 {
				// A quoted "${x}" stays a string even if x looks like a number.
				cp := *expanded
				cp.Tag, cp.Style = "!!str", n.Style
				return &cp, nil
			}
			return expanded, nil
		}
		cp := *n
		v, err := Expand(n.Value, lookup)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		cp.Value = v
		return &cp, nil
	}
	cp := *n
	cp.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		e, err := ExpandNode(c, lookup)
		if err != nil {
			return nil, err
		}
		cp.Content[i] = e
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return ExpandNode(n.Alias, lookup)
	}
	return &cp, nil
}

// ScalarNode makes a string value for a variable.
func ScalarNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func deepCopy(n *yaml.Node) *yaml.Node {
	cp := *n
	cp.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		cp.Content[i] = deepCopy(c)
	}
	return &cp
}

// Scope is a stack of variable definitions; inner definitions win. Each value
// is expanded against the scope as it was when the value was defined, so
// `driver: ${prefix}.example` works and a cycle is impossible.
type Scope struct {
	vars map[string]*yaml.Node
}

// NewScope starts a scope from string values (the builtins).
func NewScope(values map[string]string) *Scope {
	s := &Scope{vars: map[string]*yaml.Node{}}
	for k, v := range values {
		s.vars[k] = ScalarNode(v)
	}
	return s
}

// With returns a child scope holding vars, each expanded in the parent.
func (s *Scope) With(vars Vars) (*Scope, error) {
	child := &Scope{vars: make(map[string]*yaml.Node, len(s.vars)+len(vars))}
	for k, v := range s.vars {
		child.vars[k] = v
	}
	for k, v := range vars {
		v := v
		e, err := ExpandNode(&v, s.Lookup)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", k, err)
		}
		child.vars[k] = e
	}
	return child, nil
}

// Lookup implements Lookup.
func (s *Scope) Lookup(name string) (*yaml.Node, bool) {
	v, ok := s.vars[name]
	return v, ok
}

// String expands a string in the scope.
func (s *Scope) String(in string) (string, error) { return Expand(in, s.Lookup) }

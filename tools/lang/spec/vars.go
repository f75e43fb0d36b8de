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
	size := len(s)
	for _, name := range VarRefs(s) {
		if v, ok := lookup(name); ok {
			size += len(v.Value)
		}
	}
	if size > MaxExpandedBytes {
		return "", fmt.Errorf("expands to more than %d MiB (a long variable repeated): refused", MaxExpandedBytes>>20)
	}
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

// Bounds on what variables expand to. A variable may repeat another,
// which may repeat a third, and a YAML alias repeats its anchor: each level
// multiplies, so a suite of 1 MiB could otherwise expand to 10^10 nodes and
// take the machine's memory. A case instance's whole expansion, every
// variable and object of it, stays under these; the suites shipped use a
// few thousand nodes.
const (
	MaxExpandedNodes = 1 << 20
	MaxExpandedBytes = 64 << 20
)

// budget is what is left of the bounds, shared by a scope and its children.
type budget struct{ nodes, bytes int64 }

func newBudget() *budget { return &budget{nodes: MaxExpandedNodes, bytes: MaxExpandedBytes} }

// take spends one node of size bytes, or says the bounds are reached.
func (b *budget) take(n *yaml.Node, size int) error {
	b.nodes--
	b.bytes -= int64(size)
	if b.nodes < 0 || b.bytes < 0 {
		return fmt.Errorf("line %d: variables expand to more than %d YAML nodes or %d MiB (a variable or alias repeated inside another multiplies): refused", n.Line, MaxExpandedNodes, MaxExpandedBytes>>20)
	}
	return nil
}

// ExpandNode returns a deep copy of n with variables substituted. A scalar that
// is exactly one reference takes the variable's whole value, type included, so
// a fixture can take a number, a list or a map as a parameter. The copy is
// bounded by MaxExpandedNodes and MaxExpandedBytes.
func ExpandNode(n *yaml.Node, lookup Lookup) (*yaml.Node, error) {
	return expandNode(n, lookup, newBudget())
}

func expandNode(n *yaml.Node, lookup Lookup, b *budget) (*yaml.Node, error) {
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
			expanded, err := deepCopy(v, n.Line, b)
			if err != nil {
				return nil, err
			}
			if expanded.Kind == yaml.ScalarNode && n.Style != 0 {
				// A quoted "${x}" stays a string even if x looks like a number.
				cp := *expanded
				cp.Tag, cp.Style = "!!str", n.Style
				return &cp, nil
			}
			return expanded, nil
		}
		cp := *n
		v, err := expandBounded(n, lookup, b)
		if err != nil {
			return nil, err
		}
		cp.Value = v
		return &cp, nil
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return expandNode(n.Alias, lookup, b)
	}
	if err := b.take(n, 0); err != nil {
		return nil, err
	}
	cp := *n
	cp.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		e, err := expandNode(c, lookup, b)
		if err != nil {
			return nil, err
		}
		cp.Content[i] = e
	}
	return &cp, nil
}

// expandBounded expands a scalar's string, refusing it before it is built
// when its length would pass the budget (a line of 10^5 references to a
// long value).
func expandBounded(n *yaml.Node, lookup Lookup, b *budget) (string, error) {
	size := len(n.Value)
	for _, name := range VarRefs(n.Value) {
		if v, ok := lookup(name); ok && v.Kind == yaml.ScalarNode {
			size += len(v.Value)
		}
	}
	if err := b.take(n, size); err != nil {
		return "", err
	}
	v, err := Expand(n.Value, lookup)
	if err != nil {
		return "", fmt.Errorf("line %d: %w", n.Line, err)
	}
	return v, nil
}

// ScalarNode makes a string value for a variable.
func ScalarNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// deepCopy copies a variable's value where a reference on line uses it,
// aliases resolved, within b.
func deepCopy(n *yaml.Node, line int, b *budget) (*yaml.Node, error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return deepCopy(n.Alias, line, b)
	}
	at := *n
	at.Line = line
	if err := b.take(&at, len(n.Value)); err != nil {
		return nil, err
	}
	cp := *n
	cp.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		e, err := deepCopy(c, line, b)
		if err != nil {
			return nil, err
		}
		cp.Content[i] = e
	}
	return &cp, nil
}

// Scope is a stack of variable definitions; inner definitions win. Each value
// is expanded against the scope as it was when the value was defined, so
// `driver: ${prefix}.example` works and a cycle is impossible.
type Scope struct {
	vars map[string]*yaml.Node
	// budget is what is left of the bounds once the scope's variables
	// are expanded: a child scope's variables and what is expanded in the
	// scope get no more, so levels of variables cannot multiply past it.
	budget budget
}

// NewScope starts a scope from string values (the builtins).
func NewScope(values map[string]string) *Scope {
	s := &Scope{vars: map[string]*yaml.Node{}, budget: *newBudget()}
	for k, v := range values {
		s.vars[k] = ScalarNode(v)
	}
	return s
}

// With returns a child scope holding vars, each expanded in the parent.
func (s *Scope) With(vars Vars) (*Scope, error) {
	child := &Scope{vars: make(map[string]*yaml.Node, len(s.vars)+len(vars)), budget: s.budget}
	for k, v := range s.vars {
		child.vars[k] = v
	}
	for k, v := range vars {
		v := v
		e, err := expandNode(&v, s.Lookup, &child.budget)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", k, err)
		}
		child.vars[k] = e
	}
	return child, nil
}

// ExpandNode is ExpandNode in the scope, within what is left of the
// bounds once its variables are expanded.
func (s *Scope) ExpandNode(n *yaml.Node) (*yaml.Node, error) {
	b := s.budget
	return expandNode(n, s.Lookup, &b)
}

// Lookup implements Lookup.
func (s *Scope) Lookup(name string) (*yaml.Node, bool) {
	v, ok := s.vars[name]
	return v, ok
}

// String expands a string in the scope.
func (s *Scope) String(in string) (string, error) { return Expand(in, s.Lookup) }

// ExpandedNodes is how many YAML nodes n expands to, counted as ExpandNode
// spends its bound, without expanding it: size gives the count of each
// variable in scope (false: undefined, counted as one), and memo holds the
// counts of anchors already seen, so that aliases cost their count once.
// Counts stop at MaxExpandedNodes+1. The loader refuses, with the line, a
// variable over the bound before any cluster starts.
func ExpandedNodes(n *yaml.Node, size func(name string) (int64, bool), memo map[*yaml.Node]int64) int64 {
	if n == nil {
		return 0
	}
	if c, ok := memo[n]; ok {
		return c
	}
	var count int64
	switch {
	case n.Kind == yaml.AliasNode && n.Alias != nil:
		count = ExpandedNodes(n.Alias, size, memo)
	case n.Kind == yaml.ScalarNode:
		count = 1
		if m := varRef.FindStringSubmatch(n.Value); m != nil && m[0] == n.Value {
			if c, ok := size(m[1]); ok {
				count = c
			}
		}
	default:
		count = 1
		for _, c := range n.Content {
			count += ExpandedNodes(c, size, memo)
			if count > MaxExpandedNodes {
				break
			}
		}
	}
	count = min(count, MaxExpandedNodes+1)
	memo[n] = count
	return count
}

package spec

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// MapValue returns the value node of key in a mapping node.
func MapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// IsSet tells whether an optional yaml.Node field was written at all.
func IsSet(n yaml.Node) bool { return n.Kind != 0 }

// IsNull tells whether a written node is YAML null.
func IsNull(n yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// Kind is the manifest kind of an object template ("" if unknown).
func Kind(obj *yaml.Node) string {
	if k := MapValue(obj, "kind"); k != nil {
		return k.Value
	}
	return ""
}

// RefOf builds the Ref steps use for an object: lower-case kind and local name.
func RefOf(kind, name string) Ref { return Ref(strings.ToLower(kind) + "/" + name) }

// Split returns the kind and name parts of a ref.
func (r Ref) Split() (kind, name string, ok bool) {
	return strings.Cut(string(r), "/")
}

// Template returns the object a use instantiates and the fixture, if any.
func (u *ObjectUse) Template(fixtures map[string]*Fixture) (*yaml.Node, *Fixture) {
	if u.Fixture != "" {
		f := fixtures[u.Fixture]
		if f == nil {
			return nil, nil
		}
		return &f.Object, f
	}
	return &u.Object, nil
}

// LocalName is the use's name, or its fixture's default name param.
func (u *ObjectUse) LocalName(fixtures map[string]*Fixture) string {
	if u.Name != "" {
		return u.Name
	}
	if f := fixtures[u.Fixture]; f != nil {
		if n, ok := f.Params["name"]; ok {
			return n.Value
		}
	}
	return ""
}

// Uses lists the object uses of a case: given objects and write steps.
func (c *Case) Uses() []*ObjectUse {
	var out []*ObjectUse
	for i := range c.Given {
		out = append(out, &c.Given[i])
	}
	for i := range c.Steps {
		for _, w := range []*Write{c.Steps[i].Create, c.Steps[i].Update, c.Steps[i].Apply} {
			if w != nil {
				out = append(out, &w.ObjectUse)
			}
		}
	}
	return out
}

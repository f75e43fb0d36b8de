package loader

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/lang/spec"
)

// yaml.v3 drops KnownFields as soon as a type has its own UnmarshalYAML, and
// its errors carry no file name. This decoder walks the node tree and the Go
// type together instead, so every unknown key, type error and position is
// reported with file:line, all at once.

var (
	nodeType = reflect.TypeOf(yaml.Node{})
	posType  = reflect.TypeOf(spec.Pos{})
	unmType  = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
)

type decoder struct {
	file string
	errs *Problems
	// lines, if set, records the line of every string item of a list.
	lines map[*string]int
	// field is the key whose value is being decoded ("" for a document),
	// and item whether the value is an item of its list: a type error
	// names the key it is under.
	field string
	item  bool
}

// under names the value a type error is about: `key "cells"`, `an item of
// "steps"`, or nothing for a whole document.
func (d decoder) under() string {
	switch {
	case d.field == "":
		return ""
	case d.item:
		return fmt.Sprintf(" in an item of %q", d.field)
	}
	return fmt.Sprintf(" for %q", d.field)
}

func (d decoder) decode(n *yaml.Node, v reflect.Value) {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	n = resolve(n)
	t := v.Type()
	switch {
	case t == nodeType:
		v.Set(reflect.ValueOf(*n))
		return
	case reflect.PointerTo(t).Implements(unmType):
		if err := n.Decode(v.Addr().Interface()); err != nil {
			d.errs.add(d.file, n.Line, "", "%s", cleanYAMLError(err))
		}
		return
	}
	if isNull(n) {
		// A null list item still gets its position, so what validation
		// finds missing in it is reported at its line.
		if t.Kind() == reflect.Struct {
			setPos(v, d.file, n.Line)
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		d.decode(n, v.Elem())
	case reflect.Struct:
		d.decodeStruct(n, v)
	case reflect.Slice:
		d.decodeSlice(n, v)
	case reflect.Map:
		d.decodeMap(n, v)
	default:
		if n.Kind != yaml.ScalarNode {
			d.errs.add(d.file, n.Line, "", "expected a %s%s, found %s", t.Kind(), d.under(), describe(n))
			return
		}
		if err := n.Decode(v.Addr().Interface()); err != nil {
			d.errs.add(d.file, n.Line, "", "expected a %s%s, found %s", t.Kind(), d.under(), describe(n))
		}
	}
}

// decodeSlice decodes a YAML list, noting where each name of a list of
// names was written.
func (d decoder) decodeSlice(n *yaml.Node, v reflect.Value) {
	t := v.Type()
	if n.Kind != yaml.SequenceNode {
		d.errs.add(d.file, n.Line, "write a YAML list", "expected a list%s, found %s", d.under(), describe(n))
		return
	}
	s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
	di := d
	di.item = true
	for i, item := range n.Content {
		di.decode(item, s.Index(i))
		if d.lines != nil && t.Elem().Kind() == reflect.String {
			d.lines[s.Index(i).Addr().Interface().(*string)] = item.Line
		}
	}
	v.Set(s)
}

// decodeMap decodes a YAML map, refusing a key written twice.
func (d decoder) decodeMap(n *yaml.Node, v reflect.Value) {
	t := v.Type()
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.file, n.Line, "", "expected a map%s, found %s", d.under(), describe(n))
		return
	}
	m := reflect.MakeMapWithSize(t, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := reflect.New(t.Key()).Elem()
		d.decode(n.Content[i], k)
		if m.MapIndex(k).IsValid() {
			d.errs.add(d.file, n.Content[i].Line, "", "duplicate key %q", resolve(n.Content[i]).Value)
		}
		val := reflect.New(t.Elem()).Elem()
		d.decode(n.Content[i+1], val)
		m.SetMapIndex(k, val)
	}
	v.Set(m)
}

func (d decoder) decodeStruct(n *yaml.Node, v reflect.Value) {
	setPos(v, d.file, n.Line)
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.file, n.Line, "", "expected a map%s, found %s", d.under(), describe(n))
		return
	}
	fields := fieldsOf(v)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		// A key may be an alias of a key written before: its name is
		// the anchored key's, its line the alias's.
		key, val := n.Content[i], n.Content[i+1]
		name := resolve(key).Value
		if seen[name] {
			d.errs.add(d.file, key.Line, "", "duplicate key %q", name)
			continue
		}
		seen[name] = true
		f, ok := fields[name]
		if !ok {
			d.errs.add(d.file, key.Line, d.errs.closest(name, keysOf(fields)), "unknown key %q in %s", name, typeName(v.Type()))
			continue
		}
		df := d
		df.field, df.item = name, false
		df.decode(val, f)
	}
}

// setPos records where a struct with a Pos field was written.
func setPos(v reflect.Value, file string, line int) {
	if f := v.FieldByName("Pos"); f.IsValid() && f.Type() == posType {
		f.Set(reflect.ValueOf(spec.Pos{File: file, Line: line}))
	}
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// fieldsOf maps YAML keys to settable fields, following ",inline" embedding.
func fieldsOf(v reflect.Value) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("yaml")
		if tag == "-" || !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts == "inline" {
			for k, f := range fieldsOf(v.Field(i)) {
				out[k] = f
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		out[name] = v.Field(i)
	}
	return out
}

func keysOf(m map[string]reflect.Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return strings.TrimPrefix(n.Tag, "!!") + " " + strconvQuote(n.Value)
	}
	return "something else"
}

func strconvQuote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return "\"" + s + "\""
}

func typeName(t reflect.Type) string {
	return strings.ToLower(t.Name()[:1]) + t.Name()[1:]
}

// cleanYAMLError strips yaml.v3's "yaml: unmarshal errors:\n  line N:" framing,
// since the problem already carries the position.
func cleanYAMLError(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "yaml: unmarshal errors:\n")
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "line ") {
		if _, rest, ok := strings.Cut(s, ": "); ok {
			s = rest
		}
	}
	return s
}

// Describe names what a YAML node holds, as the loader's type errors do
// ("a list", "bool \"true\""), for other strict readers of YAML.
func Describe(n *yaml.Node) string { return describe(resolve(n)) }

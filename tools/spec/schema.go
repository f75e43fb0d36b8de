package spec

import (
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Schema returns a JSON Schema (draft 2020-12) for every document kind of the
// language, generated from the Go types the loader decodes into, so the
// schema an editor checks against can never drift from what draconform reads.
func Schema() map[string]any {
	g := schemaGen{defs: map[string]any{}}
	var branches []any
	for _, k := range []struct {
		kind string
		t    reflect.Type
	}{{"Suite", reflect.TypeOf(Suite{})}, {"Fixture", reflect.TypeOf(Fixture{})}, {"Cells", reflect.TypeOf(CellSet{})}, {"Register", reflect.TypeOf(Register{})}} {
		ref := g.of(k.t)
		branches = append(branches, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"kind": map[string]any{"const": k.kind}}},
			"then": ref,
		})
	}
	return map[string]any{
		"$schema":    "https://json-schema.org/draft/2020-12/schema",
		"$id":        "https://draconform.dev/schema/v1alpha1.json",
		"title":      "draconform suite, fixture and cell files",
		"type":       "object",
		"required":   []string{"apiVersion", "kind"},
		"properties": map[string]any{"apiVersion": map[string]any{"const": APIVersion}, "kind": map[string]any{"enum": []string{"Suite", "Fixture", "Cells", "Register"}}},
		"allOf":      branches,
		"$defs":      g.defs,
	}
}

type schemaGen struct{ defs map[string]any }

var (
	nodeT     = reflect.TypeOf(yaml.Node{})
	durationT = reflect.TypeOf(Duration(0))
	posT      = reflect.TypeOf(Pos{})
)

func (g schemaGen) of(t reflect.Type) map[string]any {
	switch {
	case t == nodeT:
		return map[string]any{"description": "any YAML value"}
	case t == durationT:
		return map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		name := t.Name()
		if _, done := g.defs[name]; !done {
			g.defs[name] = nil // guards recursion
			props := map[string]any{}
			g.fields(t, props)
			g.defs[name] = map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	return map[string]any{}
}

func (g schemaGen) fields(t reflect.Type, props map[string]any) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "-" || !f.IsExported() || f.Type == posT {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts == "inline" {
			g.fields(f.Type, props)
			continue
		}
		s := g.of(f.Type)
		if doc := f.Tag.Get("doc"); doc != "" {
			// $ref siblings are allowed in 2020-12, so a description fits beside it.
			cp := map[string]any{"description": doc}
			for k, v := range s {
				cp[k] = v
			}
			s = cp
		}
		props[name] = s
	}
}

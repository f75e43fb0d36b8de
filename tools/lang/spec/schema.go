package spec

import (
	"reflect"

	"github.com/invopop/jsonschema"
	"gopkg.in/yaml.v3"
)

// Schema returns a JSON Schema (draft 2020-12) for every document kind of the
// language, generated from the Go types the loader decodes into, so the
// schema an editor checks against can never drift from what draconform reads.
// invopop/jsonschema reflects the types; the strict loader stays the judge
// of a file, with its file:line errors.
func Schema() map[string]any {
	r := &jsonschema.Reflector{
		FieldNameTag: "yaml",
		// No field is required by the schema: the loader says which are,
		// in context, with the line.
		RequiredFromJSONSchemaTags: true,
		Anonymous:                  true,
		Mapper:                     schemaOfSpecial,
		LookupComment:              docTag,
	}
	defs := map[string]any{}
	var branches []any
	for _, k := range []struct {
		kind string
		v    any
	}{{"Suite", Suite{}}, {"Fixture", Fixture{}}, {"Cells", CellSet{}}, {"Register", Register{}}, {"Claims", ClaimSet{}}, {"Product", Product{}}} {
		s := r.Reflect(k.v)
		for name, def := range s.Definitions {
			defs[name] = def
		}
		branches = append(branches, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"kind": map[string]any{"const": k.kind}}},
			"then": map[string]any{"$ref": s.Ref},
		})
	}
	return map[string]any{
		"$schema":    "https://json-schema.org/draft/2020-12/schema",
		"$id":        "https://draconform.dev/schema/v1alpha1.json",
		"title":      "draconform suite, fixture, cell, register, claim and product files",
		"type":       "object",
		"required":   []string{"apiVersion", "kind"},
		"properties": map[string]any{"apiVersion": map[string]any{"const": APIVersion}, "kind": map[string]any{"enum": []string{"Suite", "Fixture", "Cells", "Register", "Claims", "Product"}}},
		"allOf":      branches,
		"$defs":      defs,
	}
}

// schemaOfSpecial gives the types the YAML decoder reads its own way.
func schemaOfSpecial(t reflect.Type) *jsonschema.Schema {
	switch t {
	case reflect.TypeOf(yaml.Node{}):
		return &jsonschema.Schema{Description: "any YAML value"}
	case reflect.TypeOf(Duration(0)):
		return &jsonschema.Schema{Type: "string", Pattern: `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`}
	}
	return nil
}

// docTag describes a field by its doc tag, the text the docs command also
// shows.
func docTag(t reflect.Type, field string) string {
	if field == "" || t.Kind() != reflect.Struct {
		return ""
	}
	f, ok := t.FieldByName(field)
	if !ok {
		return ""
	}
	return f.Tag.Get("doc")
}

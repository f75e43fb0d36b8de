package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
	"gopkg.in/yaml.v3"
)

// Digest is what the case runs, as a digest: its steps, objects and
// requirements, the suite's variables, the fixtures it uses and its cell's
// gates. Prose (title, KEP sections) and positions are left out, so moving a
// case in its file or rewording it keeps the digest, and a recorded result
// of the case (a mutant it caught) stays true exactly as long as the digest
// does.
func Digest(b *loader.Bundle, pc Case) (string, error) {
	c := *pc.Case
	c.Title, c.KEP, c.Pos = "", nil, spec.Pos{}
	cell := *pc.Cell
	cell.Description, cell.Pos = "", spec.Pos{}
	parts := []any{c, pc.Suite.Vars, cell}
	var names []string
	for _, u := range objectUses(&c) {
		if u.Fixture != "" {
			names = append(names, u.Fixture)
		}
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		f, ok := b.Fixtures[name]
		if !ok {
			return "", fmt.Errorf("case %s uses fixture %q, which is not loaded", pc.ID, name)
		}
		parts = append(parts, name, f.Params, &f.Object)
	}
	h := sha256.New()
	for _, p := range parts {
		data, err := canonical(p)
		if err != nil {
			return "", fmt.Errorf("digest of case %s: %w", pc.ID, err)
		}
		fmt.Fprintf(h, "%d\x00", len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// canonical is v as JSON with the struct fields it leaves zero omitted, so
// that a field added to a spec type, which every case leaves empty,
// changes no digest: what a case runs does not change with it. What users
// wrote inside objects, variables and patches (yaml.Node trees) is kept as
// written, zeros included, since there an explicit 0 is not an absent key.
func canonical(v any) ([]byte, error) {
	tree, err := plain(reflect.ValueOf(v))
	if err != nil {
		return nil, err
	}
	return json.Marshal(tree) // maps in key order
}

var nodeType = reflect.TypeOf(yaml.Node{})

// plain turns v into maps, slices and scalars.
func plain(v reflect.Value) (any, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == nodeType:
		n := v.Interface().(yaml.Node)
		if n.Kind == 0 {
			return nil, nil
		}
		var out any
		if err := n.Decode(&out); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		return out, nil
	case v.Kind() == reflect.Struct:
		out := map[string]any{}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if !f.IsExported() || name == "-" || v.Field(i).IsZero() {
				continue
			}
			p, err := plain(v.Field(i))
			if err != nil {
				return nil, err
			}
			if name == "" {
				name = f.Name
			}
			out[name] = p
		}
		return out, nil
	case v.Kind() == reflect.Map:
		out := map[string]any{}
		iter := v.MapRange()
		for iter.Next() {
			p, err := plain(iter.Value())
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(iter.Key().Interface())] = p
		}
		return out, nil
	case v.Kind() == reflect.Slice || v.Kind() == reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			p, err := plain(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	}
	return v.Interface(), nil
}

// Digests are the digest of every case the bundle plans, by id.
func Digests(b *loader.Bundle) (map[string]string, error) {
	out := map[string]string{}
	for _, pc := range Expand(b, Filter{}) {
		d, err := Digest(b, pc)
		if err != nil {
			return nil, err
		}
		out[pc.ID] = d
	}
	return out, nil
}

// Blocking lists, for each claim, the ids of the planned cases that block
// it (those that do not only inform).
func Blocking(b *loader.Bundle) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, c := range Claims(b, Expand(b, Filter{})) {
		ids := map[string]bool{}
		for _, cc := range c.Cases {
			if !cc.Informing {
				ids[cc.ID] = true
			}
		}
		out[c.Name] = ids
	}
	return out
}

// objectUses are every object a case writes: given, and in create, apply
// and update steps, gap.closed included.
func objectUses(c *spec.Case) []*spec.ObjectUse {
	var out []*spec.ObjectUse
	for i := range c.Given {
		out = append(out, &c.Given[i])
	}
	walk := func(steps []spec.Step) {
		for _, st := range steps {
			for _, w := range []*spec.Write{st.Create, st.Update, st.Apply} {
				if w != nil {
					out = append(out, &w.ObjectUse)
				}
			}
		}
	}
	walk(c.Steps)
	if c.Gap != nil {
		walk(c.Gap.Closed)
	}
	return out
}

package match

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// PrunedDiff renders got pruned to the keys present in want, next to want, as
// a unified line diff of two YAML documents with sorted keys ("--- want",
// "+++ got"). It returns "" when they are equal after pruning.
//
// Leaves that match under Subset's rules are rendered with want's spelling
// (so "1000m" matching "1", <any>, or an absent field matching null do not
// show up as changes), which makes the diff empty whenever Subset finds
// no mismatch. Extra elements of a longer got list are pruned like want's
// last element, so a reader sees which element is surplus in the same shape.
func PrunedDiff(want, got any) string {
	want = normalize(want)
	pruned, _ := prune(want, normalize(got), true)
	w, g := toYAML(want), toYAML(pruned)
	if w == g {
		return ""
	}
	return unifiedDiff("want", "got", w, g)
}

// prune returns the part of got that want talks about; keep is false when
// the field should be left out of the rendering because got lacks it.
func prune(want, got any, present bool) (pruned any, keep bool) {
	if want == nil {
		if !present || got == nil {
			return nil, true
		}
		return got, true
	}
	if !present {
		return nil, false
	}
	if got == nil {
		return nil, true
	}
	if want == AnyValue {
		if empty(got) {
			return got, true
		}
		return want, true
	}
	switch w := want.(type) {
	case Unordered:
		g, ok := got.([]any)
		if !ok {
			return got, true
		}
		return pruneUnordered(w, g), true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got, true
		}
		return pruneMap(w, g), true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return got, true
		}
		return pruneList(w, g), true
	}
	if equal, _ := scalarEqual(want, got); equal {
		return want, true
	}
	return got, true
}

// pruneMap keeps the keys want names.
func pruneMap(want, got map[string]any) map[string]any {
	out := make(map[string]any, len(want))
	for k, wv := range want {
		gv, has := got[k]
		if p, keep := prune(wv, gv, has); keep {
			out[k] = p
		}
	}
	return out
}

// pruneList prunes every got item, the ones past want's end by its last.
func pruneList(want, got []any) []any {
	out := make([]any, len(got))
	for i, gv := range got {
		switch {
		case i < len(want):
			out[i], _ = prune(want[i], gv, true)
		case len(want) > 0:
			out[i], _ = prune(want[len(want)-1], gv, true)
		default:
			out[i] = gv
		}
	}
	return out
}

func toYAML(v any) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		// Normalised trees only hold YAML-encodable values; this is a
		// last resort so a diff is never lost to an encoding error.
		return fmt.Sprintf("# cannot render as YAML: %v\n%#v\n", err, v)
	}
	_ = enc.Close()
	return buf.String()
}

package match

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
)

// normalize returns a deep copy of v in which every value has one canonical
// Go type per JSON kind, so the matcher needs only one case per kind.
// Copying (rather than converting in place) keeps callers' objects untouched.
func normalize(v any) any {
	switch v := v.(type) {
	case nil, string, bool, int64, float64, time.Time:
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	case Unordered:
		out := make(Unordered, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	case int:
		return int64(v)
	case int32:
		return int64(v)
	case float32:
		// Go through the shortest decimal form so 0.1f stays 0.1 rather than
		// becoming 0.10000000149011612.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
		return f
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return string(v)
	}
	return normalizeReflect(reflect.ValueOf(v))
}

// normalizeReflect covers the long tail: other integer widths, typed maps
// and slices (e.g. map[any]any from yaml.v3, []string from Go literals) and
// pointers.
func normalizeReflect(rv reflect.Value) any {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return float64(u)
		}
		return int64(u)
	case reflect.Float32, reflect.Float64:
		return normalize(rv.Interface())
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return normalize(rv.Elem().Interface())
	case reflect.Map:
		if rv.IsNil() {
			return nil
		}
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			out[fmt.Sprint(it.Key().Interface())] = normalize(it.Value().Interface())
		}
		return out
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = normalize(rv.Index(i).Interface())
		}
		return out
	}
	return rv.Interface()
}

// kindName names the JSON kind of a normalised value for "type:" reasons.
func kindName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "map"
	case []any, Unordered:
		return "list"
	case string:
		return "string"
	case int64, float64:
		return "number"
	case bool:
		return "bool"
	case time.Time:
		return "timestamp"
	}
	return fmt.Sprintf("%T", v)
}

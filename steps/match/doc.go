// Package match compares an expected ("want") partial object against an
// actual ("got") API object, in the spirit of Chainsaw's assert: a spec
// states only the fields it cares about and everything else is ignored.
//
// Trees are JSON-like values: map[string]any, []any, string, numbers, bool
// and nil, as produced by encoding/json, runtime.DefaultUnstructuredConverter
// or gopkg.in/yaml.v3 decoding into any. Inputs are normalised first (every
// integer kind becomes int64, float32 becomes float64, json.Number is parsed,
// map[any]any keys are stringified, typed slices/maps/pointers are unwrapped),
// so a spec read from YAML can be compared with an object read from the API.
//
// Matching rules, applied recursively by [Subset]:
//
//   - Maps: every key of want must be present in got and match; keys that
//     only got has are ignored.
//   - Lists: got must have the same length; element i of want is matched
//     against element i of got. A length difference is reported once, at the
//     list's path, and the common prefix is still compared so that one
//     missing element does not hide other differences.
//   - [Unordered] lists: got must have the same length, and each element of
//     want must be matched by a distinct element of got, in any order (a
//     maximum bipartite matching). An element left unmatched is reported
//     against the closest got element left, at that element's index.
//   - want nil (YAML null or ~): the field must be absent or null in got;
//     otherwise Reason is "must be absent".
//   - want "<any>" ([AnyValue]): the field must exist and hold a value: not
//     null, and not "", {} or [] (Reason "empty (<any> needs a value)").
//   - A null in got counts as absent, mirroring the rule above: the API
//     server omits empty fields and clients differ in whether they write null.
//   - Scalars must be equal after normalisation. Numbers compare numerically
//     and exactly across int64 and float64 (1 equals 1.0). Two strings that
//     both parse as resource.Quantity compare by value ("1" equals "1000m",
//     "1Gi" equals "1073741824"), and a want number against a got string
//     quantity compares the same way, because YAML authors write `shares: 1`
//     while the API serialises quantities as strings. The reverse (want
//     string, got number) is a type mismatch: quoting was deliberate. An
//     unquoted YAML timestamp (decoded as time.Time) matches a got string
//     that denotes the same instant. Any other kind difference is reported
//     as "type: got <kind>, want <kind>".
//
// Mismatches come back sorted by path: map keys in byte order, list indices
// numerically, a list's own length mismatch before its elements.
//
// Paths (see [ParsePath]) are dotted field names with [i] for list indices.
// Keys that are not simple identifiers (letter or underscore, then letters,
// digits, underscores or dashes) are written as Go-quoted strings in
// brackets, e.g.
//
//	metadata.annotations["resource.kubernetes.io/extended-resource-claim"]
//	spec.devices[1].capacity.shares.value
//
// The empty path denotes the root of the tree.
package match

package match

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// AnyValue as a want value matches any present value that is not empty:
// not null, "", {} or []. A field the API server or a client wrote empty
// says nothing was set, which is what "<any>" means to rule out (a shareID
// of "" is no share).
const AnyValue = "<any>"

// Reasons that callers may want to branch on; the others are built with
// values in them ("length 2, want 1", "type: got string, want map").
const (
	ReasonMissing      = "missing"
	ReasonMustBeAbsent = "must be absent"
	ReasonDiffers      = "differs"
	ReasonEmpty        = "empty (<any> needs a value)"
)

// maxValueLen bounds how much of a value String prints; a missing subtree can
// be a whole spec and would bury the other mismatches in a test log.
const maxValueLen = 120

// Mismatch is one difference, addressed by a field path such as
// spec.devices[1].capacity.shares.value or
// metadata.annotations["resource.kubernetes.io/extended-resource-claim"].
type Mismatch struct {
	Path   string
	Want   any    // expected value (nil where the want was "absent")
	Got    any    // actual value, or nil when missing
	Reason string // "missing", "must be absent", "differs", "length 2, want 1", "type: got string, want map"
}

// String renders the mismatch on one line, showing only the values that
// explain the reason.
func (m Mismatch) String() string {
	path := m.Path
	if path == "" {
		path = "(root)"
	}
	switch m.Reason {
	case ReasonMissing:
		return fmt.Sprintf("%s: %s (want %s)", path, m.Reason, render(m.Want))
	case ReasonMustBeAbsent:
		return fmt.Sprintf("%s: %s (got %s)", path, m.Reason, render(m.Got))
	}
	return fmt.Sprintf("%s: %s (want %s, got %s)", path, m.Reason, render(m.Want), render(m.Got))
}

// render prints values as JSON so strings are visibly quoted ("1" vs 1) and
// map keys come out sorted.
func render(v any) string {
	b, err := json.Marshal(v)
	s := string(b)
	if err != nil {
		s = fmt.Sprintf("%v", v)
	}
	if r := []rune(s); len(r) > maxValueLen {
		s = string(r[:maxValueLen]) + "…"
	}
	return s
}

// Subset reports how got fails to contain want, sorted by path. An empty
// result means got matches.
func Subset(want, got any) []Mismatch {
	var out []Mismatch
	compare(&out, "", normalize(want), normalize(got), true)
	return out
}

// compare walks want in sorted key order, which is what makes the result
// sorted by path without a separate sort.
func compare(out *[]Mismatch, path string, want, got any, present bool) {
	add := func(reason string) {
		*out = append(*out, Mismatch{Path: path, Want: want, Got: got, Reason: reason})
	}
	if want == nil {
		if present && got != nil {
			add(ReasonMustBeAbsent)
		}
		return
	}
	if !present || got == nil {
		got = nil
		add(ReasonMissing)
		return
	}
	if want == AnyValue {
		if empty(got) {
			add(ReasonEmpty)
		}
		return
	}
	switch w := want.(type) {
	case Unordered:
		g, ok := got.([]any)
		if !ok {
			add(typeReason(want, got))
			return
		}
		compareUnordered(out, path, w, g)
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			add(typeReason(want, got))
			return
		}
		compareMap(out, path, w, g)
	case []any:
		g, ok := got.([]any)
		if !ok {
			add(typeReason(want, got))
			return
		}
		compareList(out, path, w, g)
	default:
		equal, comparable := scalarEqual(want, got)
		switch {
		case !comparable:
			add(typeReason(want, got))
		case !equal:
			add(ReasonDiffers)
		}
	}
}

// compareMap compares the keys want names, in order.
func compareMap(out *[]Mismatch, path string, want, got map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(want)) {
		gv, has := got[k]
		compare(out, keyPath(path, k), want[k], gv, has)
	}
}

// compareList compares a list item by item, after its length.
func compareList(out *[]Mismatch, path string, want, got []any) {
	if len(got) != len(want) {
		*out = append(*out, Mismatch{Path: path, Want: want, Got: got, Reason: fmt.Sprintf("length %d, want %d", len(got), len(want))})
	}
	for i := 0; i < len(want) && i < len(got); i++ {
		compare(out, indexPath(path, i), want[i], got[i], true)
	}
}

// empty says a present, non-null value holds nothing.
func empty(v any) bool {
	switch v := v.(type) {
	case string:
		return v == ""
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

func typeReason(want, got any) string {
	return "type: got " + kindName(got) + ", want " + kindName(want)
}

// Strings formats mismatches one per line, for test failure messages.
func Strings(ms []Mismatch) string {
	lines := make([]string, len(ms))
	for i, m := range ms {
		lines[i] = m.String()
	}
	return strings.Join(lines, "\n")
}

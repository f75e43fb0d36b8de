package match

import (
	"fmt"
	"strconv"
	"strings"
)

// Segment is one step of a path: a map key, or a list index when IsIndex.
// A struct rather than an interface keeps segments comparable with ==.
type Segment struct {
	Key     string
	Index   int
	IsIndex bool
}

// String renders the segment as it appears after a preceding segment.
func (s Segment) String() string {
	if s.IsIndex {
		return "[" + strconv.Itoa(s.Index) + "]"
	}
	if isIdent(s.Key) {
		return "." + s.Key
	}
	return "[" + strconv.Quote(s.Key) + "]"
}

// FormatPath is the inverse of ParsePath.
func FormatPath(segs []Segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.String())
	}
	return strings.TrimPrefix(b.String(), ".")
}

func keyPath(parent, key string) string {
	s := Segment{Key: key}.String()
	if parent == "" {
		return strings.TrimPrefix(s, ".")
	}
	return parent + s
}

func indexPath(parent string, i int) string {
	return parent + Segment{Index: i, IsIndex: true}.String()
}

// isIdent reports whether a key can be written bare. Dashes are allowed
// after the first character because label keys use them a lot and they
// cannot be confused with any other path syntax.
func isIdent(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		switch {
		case r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case i > 0 && (r == '-' || '0' <= r && r <= '9'):
		default:
			return false
		}
	}
	return true
}

// ParsePath splits a path written as in Mismatch.Path into segments. The
// empty path is valid and has no segments (the root).
func ParsePath(path string) ([]Segment, error) {
	var segs []Segment
	for i := 0; i < len(path); {
		switch {
		case path[i] == '[':
			seg, n, err := parseBracket(path[i:])
			if err != nil {
				return nil, fmt.Errorf("path %q at offset %d: %w", path, i, err)
			}
			segs = append(segs, seg)
			i += n
		case i == 0 || path[i] == '.':
			if i > 0 {
				i++ // the dot itself
			}
			end := i
			for end < len(path) && path[end] != '.' && path[end] != '[' {
				end++
			}
			if !isIdent(path[i:end]) {
				return nil, fmt.Errorf("path %q at offset %d: want identifier, got %q", path, i, path[i:end])
			}
			segs = append(segs, Segment{Key: path[i:end]})
			i = end
		default:
			return nil, fmt.Errorf("path %q at offset %d: want '.' or '[', got %q", path, i, path[i])
		}
	}
	return segs, nil
}

// parseBracket parses `[123]` or `["quoted"]` at the start of s and returns
// the segment and the number of bytes consumed.
func parseBracket(s string) (Segment, int, error) {
	if len(s) > 1 && s[1] == '"' {
		end := 2
		for ; end < len(s) && s[end] != '"'; end++ {
			if s[end] == '\\' {
				end++ // skip the escaped byte so \" does not end the string
			}
		}
		if end+1 >= len(s) || s[end+1] != ']' {
			return Segment{}, 0, fmt.Errorf("unterminated quoted key")
		}
		key, err := strconv.Unquote(s[1 : end+1])
		if err != nil {
			return Segment{}, 0, fmt.Errorf("bad quoted key %s: %w", s[1:end+1], err)
		}
		return Segment{Key: key}, end + 2, nil
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return Segment{}, 0, fmt.Errorf("missing ']'")
	}
	digits := s[1:end]
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return Segment{}, 0, fmt.Errorf("index %q is not a non-negative integer", digits)
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return Segment{}, 0, fmt.Errorf("index %q: %w", digits, err)
	}
	return Segment{Index: n, IsIndex: true}, end + 1, nil
}

// Lookup returns the value at path and whether it exists. A key present with
// a null value exists; an invalid path exists nowhere. The value comes back
// normalised (int64/float64 numbers, map[string]any) so callers can compare
// it with values from either YAML or the API.
func Lookup(tree any, path string) (any, bool) {
	segs, err := ParsePath(path)
	if err != nil {
		return nil, false
	}
	cur := normalize(tree)
	for _, s := range segs {
		switch node := cur.(type) {
		case map[string]any:
			v, ok := node[s.Key]
			if s.IsIndex || !ok {
				return nil, false
			}
			cur = v
		case []any:
			if !s.IsIndex || s.Index >= len(node) {
				return nil, false
			}
			cur = node[s.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}

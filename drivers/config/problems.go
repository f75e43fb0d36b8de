package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/draconform/draconform/tools/lang/yamlpos"
	yamlv3 "gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A config file may come from anyone who can edit the driver's ConfigMap.
// Parse answers every file with a config or with problems at file:line, in
// bounded time and memory: sigs.k8s.io/yaml decodes it, as before, and a
// yaml.v3 node tree of the same bytes says where each problem is.

// MaxFileSize bounds a config file: 1 MiB, what a ConfigMap holds.
const MaxFileSize = 1 << 20

// Problem is one thing wrong with a config file, at file:line.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// Problems is every problem found, in line order.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// readFile reads at most MaxFileSize+1 bytes of path: enough to tell that
// a file is too large without reading all of it.
func readFile(path string) ([]byte, error) { return yamlpos.ReadFile(path, MaxFileSize) }

// errLine is the line a decoding error names, anywhere in its text.
var errLine = regexp.MustCompile(`line ([0-9]+): `)

// yamlError is yamlpos.Error of a yaml.v3 error.
func yamlError(data []byte, err error) (int, string) { return yamlpos.Error(data, err.Error()) }

func lastLine(data []byte) int { return yamlpos.LastLine(data) }

// document parses data's one document into a node tree for positions. It
// returns the problem that stops decoding, if any: YAML that is not valid,
// or a second document, which would not be read.
func document(name string, data []byte) (*yamlv3.Node, *Problem) {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	var doc yamlv3.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF):
		return nil, nil
	case err != nil:
		line, msg := yamlError(data, err)
		return nil, &Problem{name, line, "decode: not valid YAML: " + msg}
	}
	var root *yamlv3.Node
	if len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	var next yamlv3.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		line, msg := yamlError(data, err)
		return root, &Problem{name, line, "decode: not valid YAML: " + msg}
	case len(next.Content) > 0 && !isEmpty(next.Content[0]):
		return root, &Problem{name, min(next.Content[0].Line, lastLine(data)), "decode: a second YAML document: a config file holds one"}
	}
	return root, nil
}

// isEmpty tells a document with nothing written in it (after a trailing ---).
func isEmpty(n *yamlv3.Node) bool {
	return n.Kind == yamlv3.ScalarNode && n.Tag == "!!null" && n.Value == "" && n.Anchor == ""
}

var (
	configType    = reflect.TypeOf(Config{})
	quantityType  = reflect.TypeOf(resource.Quantity{})
	attributeType = reflect.TypeOf(Attribute{})
	unknownField  = regexp.MustCompile(`json: unknown field "(.*)"`)
	aliasProblem  = regexp.MustCompile(`anchor '(.*)' value contains itself|excessive aliasing|unknown anchor '(.*)'`)
)

// decodeLine finds the line of what sigs.k8s.io/yaml could not decode:
// the first node, in document order, that has the problem its error
// describes, else the line the error names, else the document's first.
func decodeLine(root *yamlv3.Node, data []byte, err error) int {
	if root == nil {
		return 1
	}
	var line int
	var typeErr *json.UnmarshalTypeError
	switch m := unknownField.FindStringSubmatch(err.Error()); {
	case m != nil:
		line = first(root, func(n *yamlv3.Node, t reflect.Type, _ string) bool { return t == nil && n.Value == m[1] })
	case errors.As(err, &typeErr):
		// The first node at the field's path that is not of its kind,
		// else the first at the path.
		line = first(root, func(n *yamlv3.Node, t reflect.Type, path string) bool {
			return t != nil && path == typeErr.Field && !fits(n, t)
		})
		if line == 0 {
			line = first(root, func(n *yamlv3.Node, t reflect.Type, path string) bool { return t != nil && path == typeErr.Field })
		}
	case aliasProblem.MatchString(err.Error()):
		// The alias named, or the first (excessive aliasing).
		name := aliasProblem.FindStringSubmatch(err.Error())
		line = anyNode(root, func(n *yamlv3.Node) bool {
			return n.Kind == yamlv3.AliasNode && (name[1] == "" && name[2] == "" || n.Value == name[1] || n.Value == name[2])
		})
	case strings.Contains(err.Error(), "map key"):
		// JSON has only string keys: the first key that is a list, a
		// map or null.
		anyNode(root, func(n *yamlv3.Node) bool {
			for i := 0; n.Kind == yamlv3.MappingNode && i < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Kind != yamlv3.ScalarNode || k.Tag == "!!null" {
					line = k.Line
					return true
				}
			}
			return false
		})
	default:
		// A quantity that does not parse says nothing of where it is.
		line = first(root, func(n *yamlv3.Node, t reflect.Type, _ string) bool {
			if t != quantityType {
				return false
			}
			_, qErr := resource.ParseQuantity(n.Value)
			return n.Kind != yamlv3.ScalarNode || qErr != nil
		})
	}
	if line == 0 {
		if m := errLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
	}
	if line < 1 {
		line = root.Line
	}
	return min(max(line, 1), lastLine(data))
}

// fits tells whether n is of the kind a value of type t is written as.
func fits(n *yamlv3.Node, t reflect.Type) bool {
	switch {
	case t == quantityType || t == attributeType:
		return n.Kind == yamlv3.ScalarNode
	case t.Kind() == reflect.Struct || t.Kind() == reflect.Map:
		return n.Kind == yamlv3.MappingNode
	case t.Kind() == reflect.Slice:
		return n.Kind == yamlv3.SequenceNode
	case t.Kind() == reflect.Bool:
		return n.Kind == yamlv3.ScalarNode && n.Tag == "!!bool"
	case t.Kind() == reflect.String:
		return n.Kind == yamlv3.ScalarNode && n.Tag == "!!str"
	}
	return true
}

// first walks the tree as the JSON decoder walks Config, in document
// order, and returns the line of the first node visit accepts (0: none).
// visit sees each value with its Go type and its path as
// json.UnmarshalTypeError writes it (field names joined by dots), and each
// key that names no field with a nil type. Aliases are not followed, so
// the walk is linear in the tree.
func first(root *yamlv3.Node, visit func(n *yamlv3.Node, t reflect.Type, path string) bool) int {
	var walk func(n *yamlv3.Node, t reflect.Type, path string) int
	walk = func(n *yamlv3.Node, t reflect.Type, path string) int {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if visit(n, t, path) {
			return n.Line
		}
		if t == quantityType || t == attributeType {
			return 0
		}
		switch {
		case t.Kind() == reflect.Struct && n.Kind == yamlv3.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i]
				f, ok := jsonField(t, key.Value)
				if !ok {
					if visit(key, nil, path) {
						return key.Line
					}
					continue
				}
				if line := walk(n.Content[i+1], f.Type, join(path, f.name)); line > 0 {
					return line
				}
			}
		case t.Kind() == reflect.Map && n.Kind == yamlv3.MappingNode:
			for i := 1; i < len(n.Content); i += 2 {
				if line := walk(n.Content[i], t.Elem(), path); line > 0 {
					return line
				}
			}
		case t.Kind() == reflect.Slice && n.Kind == yamlv3.SequenceNode:
			for _, item := range n.Content {
				if line := walk(item, t.Elem(), path); line > 0 {
					return line
				}
			}
		}
		return 0
	}
	return walk(root, configType, "")
}

// anyNode returns the line of the first node of the tree, in document
// order, that visit accepts (0: none), without following aliases.
func anyNode(n *yamlv3.Node, visit func(*yamlv3.Node) bool) int {
	if visit(n) {
		return n.Line
	}
	for _, c := range n.Content {
		if line := anyNode(c, visit); line > 0 {
			return line
		}
	}
	return 0
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

type jsonName struct {
	name string
	reflect.Type
}

// jsonField finds the field key names by its JSON name, exactly:
// encoding/json would also take a name in other case, but ParseFile
// refuses those (see foldedKey).
func jsonField(t reflect.Type, key string) (jsonName, bool) {
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && name == key {
			return jsonName{name, t.Field(i).Type}, true
		}
	}
	return jsonName{}, false
}

// foldedKey finds the first key that names a field in other case
// (deviCes), which encoding/json would take: two such keys, capacity and
// Capacity, would silently drop one of the values. It returns the key's
// line and the field's name, or 0.
func foldedKey(root *yamlv3.Node) (line int, key, field string) {
	if root == nil {
		return 0, "", ""
	}
	var walk func(n *yamlv3.Node, t reflect.Type) bool
	walk = func(n *yamlv3.Node, t reflect.Type) bool {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == quantityType || t == attributeType {
			return false
		}
		switch {
		case t.Kind() == reflect.Struct && n.Kind == yamlv3.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if f, ok := jsonField(t, k.Value); ok {
					if walk(n.Content[i+1], f.Type) {
						return true
					}
					continue
				}
				for j := 0; j < t.NumField(); j++ {
					name, _, _ := strings.Cut(t.Field(j).Tag.Get("json"), ",")
					if name != "" && strings.EqualFold(name, k.Value) {
						line, key, field = k.Line, k.Value, name
						return true
					}
				}
			}
		case t.Kind() == reflect.Map && n.Kind == yamlv3.MappingNode:
			for i := 1; i < len(n.Content); i += 2 {
				if walk(n.Content[i], t.Elem()) {
					return true
				}
			}
		case t.Kind() == reflect.Slice && n.Kind == yamlv3.SequenceNode:
			for _, item := range n.Content {
				if walk(item, t.Elem()) {
					return true
				}
			}
		}
		return false
	}
	walk(root, configType)
	return line, key, field
}

// locator finds the line of a validation error's field path, such as
// devices[0].capacity[x.y/a].requestPolicy.default: the line of the
// deepest node of the path the tree has (a missing value is reported where
// it would be written). It indexes each map's keys once, so that
// thousands of errors in one map cost no more than the map.
type locator struct {
	root *yamlv3.Node
	keys map[*yamlv3.Node]map[string]int // a map node's keys, to their index in Content
	// indexed counts the indexes built, which its test holds to one per map.
	indexed int
}

func newLocator(root *yamlv3.Node) *locator {
	return &locator{root: root, keys: map[*yamlv3.Node]map[string]int{}}
}

// key finds the key of map node n named name.
func (l *locator) key(n *yamlv3.Node, name string) (int, bool) {
	idx, ok := l.keys[n]
	if !ok {
		idx = map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := resolve(n.Content[i]); k.Kind == yamlv3.ScalarNode {
				if _, dup := idx[k.Value]; !dup {
					idx[k.Value] = i
				}
			}
		}
		l.keys[n] = idx
		l.indexed++
	}
	i, found := idx[name]
	return i, found
}

func (l *locator) line(path string) int {
	if l.root == nil {
		return 1
	}
	n, line := l.root, l.root.Line
	for path != "" {
		n = resolve(n)
		var next, key *yamlv3.Node
		switch {
		case strings.HasPrefix(path, "[") && n.Kind == yamlv3.SequenceNode:
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return line
			}
			i, err := strconv.Atoi(path[1:end])
			if err != nil || i < 0 || i >= len(n.Content) {
				return line
			}
			next, path = n.Content[i], path[end+1:]
		case strings.HasPrefix(path, "[") && n.Kind == yamlv3.MappingNode:
			// A key may hold dots and brackets: take the longest that
			// the path goes on with.
			rest := ""
			for end := 1; end < len(path); end++ {
				if path[end] != ']' {
					continue
				}
				if i, ok := l.key(n, path[1:end]); ok {
					key, next, rest = n.Content[i], n.Content[i+1], path[end+1:]
				}
			}
			if key == nil {
				return line
			}
			path = rest
		case n.Kind == yamlv3.MappingNode && !strings.HasPrefix(path, "["):
			name := strings.TrimPrefix(path, ".")
			end := strings.IndexAny(name, ".[")
			if end < 0 {
				end = len(name)
			}
			i, ok := l.key(n, name[:end])
			if !ok {
				return line
			}
			key, next, path = n.Content[i], n.Content[i+1], name[end:]
		default:
			return line
		}
		line = next.Line
		if key != nil {
			line = key.Line
		}
		n = next
	}
	return line
}

func resolve(n *yamlv3.Node) *yamlv3.Node {
	if n.Kind == yamlv3.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// sortByLine orders problems by line, keeping the order of those on one line.
func sortByLine(ps Problems) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
}

// Package flagfile reads a config file of the flags a team always passes
// (.draconform.yaml: the long flag names of a command as keys) and gives
// them to the command's flags, as strictly as the spec loader reads a
// suite: an unknown key, a value of the wrong type or a file that is not
// YAML is refused with file:line, all problems at once.
package flagfile

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/yamlpos"
)

// Default is the config file read from the current folder when no
// --config names one.
const Default = ".draconform.yaml"

// maxSize bounds the file: a config is a few lines.
const maxSize = 1 << 20

// notInFile are flags a config file may not set: which file to read, and
// help.
var notInFile = map[string]string{
	"config": "a config file cannot name another one",
	"help":   "help is asked for on the command line",
}

// Applied is what a config file did to a command's flags.
type Applied struct {
	Path string
	// Set are the keys whose values the file gave; Overridden those it
	// names that the command line gave too, which win.
	Set, Overridden []string
}

// Apply reads the config file at path and sets, in flags, every flag it
// names that the command line did not give. A value set so does not count
// as given (flags.Changed stays false), so a command that treats a flag
// typed by the person differently (run --rerun-failed and --provider)
// treats the file's value as a default. named says path was given with
// --config, where a missing file is an error; the default path may be
// absent (nil, nil). A problem in the file is a loader.Problems.
func Apply(flags *pflag.FlagSet, path string, named bool) (*Applied, error) {
	data, err := yamlpos.ReadFile(path, maxSize)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !named:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("--config %s: no such file", path)
	case err != nil:
		return nil, fmt.Errorf("config file: %w", err)
	case len(data) > maxSize:
		return nil, fmt.Errorf("config file %s: larger than %d bytes", path, maxSize)
	}
	entries, problems := parse(path, data)
	a := &Applied{Path: path}
	for _, e := range entries {
		problems = append(problems, a.set(flags, path, e)...)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return a, nil
}

// entry is one key of the file with its value.
type entry struct{ key, value *yaml.Node }

// parse reads data as a map of flag names to values.
func parse(path string, data []byte) ([]entry, loader.Problems) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlpos.Error(data, err.Error())
		return nil, loader.Problems{{File: path, Line: line, Msg: msg}}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil // an empty file sets nothing
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, loader.Problems{{File: path, Line: root.Line, Msg: "expected a map of flag names to values, found " + loader.Describe(root),
			Hint: "write one flag a line, e.g. provider: local,prototype"}}
	}
	var out []entry
	var problems loader.Problems
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if seen[k.Value] {
			problems = append(problems, loader.Problem{File: path, Line: k.Line, Msg: fmt.Sprintf("duplicate key %q", k.Value)})
			continue
		}
		seen[k.Value] = true
		out = append(out, entry{k, root.Content[i+1]})
	}
	return out, problems
}

// set gives the flag e names its value, unless the command line gave it.
func (a *Applied) set(flags *pflag.FlagSet, path string, e entry) loader.Problems {
	name := e.key.Value
	at := func(line int, hint, format string, args ...any) loader.Problems {
		return loader.Problems{{File: path, Line: line, Msg: fmt.Sprintf(format, args...), Hint: hint}}
	}
	if why, ok := notInFile[name]; ok {
		return at(e.key.Line, "", "key %q: %s", name, why)
	}
	f := flags.Lookup(name)
	if f == nil || f.Hidden {
		return at(e.key.Line, loader.DidYouMean(name, flagNames(flags)), "unknown key %q: the keys are the command's long flag names", name)
	}
	v := e.value
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if v.Kind != yaml.ScalarNode || !fits(f.Value.Type(), v.Tag) {
		return at(e.value.Line, hint(f.Value.Type()), "expected a %s for %q, found %s", f.Value.Type(), name, loader.Describe(v))
	}
	if flags.Changed(name) {
		a.Overridden = append(a.Overridden, name)
		return nil
	}
	// Value.Set, not flags.Set: the flag stays "not given".
	if err := f.Value.Set(v.Value); err != nil {
		return at(e.value.Line, "", "%q: %v", name, err)
	}
	a.Set = append(a.Set, name)
	return nil
}

// fits says whether a YAML scalar of tag may give a flag of type typ: a
// bool flag takes true or false, a number flag a number, any other flag
// text (a number is text too: k8s-version, parallel), never true or null.
func fits(typ, tag string) bool {
	switch typ {
	case "bool":
		return tag == "!!bool"
	case "int", "int32", "int64", "uint", "uint32", "uint64":
		return tag == "!!int"
	case "float32", "float64":
		return tag == "!!int" || tag == "!!float"
	}
	return tag == "!!str" || tag == "!!int" || tag == "!!float"
}

// hint says how to write a value of a flag of type typ.
func hint(typ string) string {
	switch typ {
	case "bool":
		return "write true or false"
	case "int", "int32", "int64", "uint", "uint32", "uint64", "float32", "float64":
		return "write a number"
	}
	return "write the value as on the command line, e.g. provider: local,prototype"
}

// flagNames are the keys a file may use, for "did you mean".
func flagNames(flags *pflag.FlagSet) []string {
	var out []string
	flags.VisitAll(func(f *pflag.Flag) {
		if _, no := notInFile[f.Name]; !no && !f.Hidden {
			out = append(out, f.Name)
		}
	})
	sort.Strings(out)
	return out
}

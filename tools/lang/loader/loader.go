// Package loader reads suites, cells and fixtures from YAML, strictly: every
// unknown key, type error, bad reference and undefined variable is reported
// with file:line and a hint, all at once, before anything runs.
package loader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/lang/spec"
)

// Bundle is everything a run needs from YAML.
type Bundle struct {
	Suites   []*spec.Suite
	Fixtures map[string]*spec.Fixture
	Cells    map[string]*spec.Cell
	// CellOrder keeps cells in the order they were written, for reports.
	CellOrder []string
	Register  []*spec.RegisterEntry
	// Claims are the certification claims, in file order.
	Claims []*spec.Claim
	// Kinds are the step kinds the bundle was checked with; the planner
	// reads which of them make a case run alone.
	Kinds spec.StepKinds
	// lines are where the items of lists of names were written, so that a
	// bad name is reported at its own line, not its document's.
	lines map[*string]int
}

// lineOf is the line item (an element of a decoded list) was written at,
// or def.
func (b *Bundle) lineOf(item *string, def int) int {
	if l, ok := b.lines[item]; ok {
		return l
	}
	return def
}

// Load reads every *.yaml file of suites (Suite and Cells documents) and of
// fixtures (Fixture documents), then validates the whole bundle, each step
// through its kind in kinds (steps.Kinds(): the step code describes its
// kinds, so the language need not import it). Problems name the files
// suites/<file> and fixtures/<file>.
func Load(suites, fixtures fs.FS, kinds spec.StepKinds) (*Bundle, error) {
	return LoadNamed(suites, "suites", fixtures, "fixtures", kinds)
}

// LoadNamed is Load with the folder names problems show, so that a user's
// own folder (--suites ../mine) is reported as the path the user gave, and
// the file:line opens in an editor.
func LoadNamed(suites fs.FS, suitesDir string, fixtures fs.FS, fixturesDir string, kinds spec.StepKinds) (*Bundle, error) {
	b := &Bundle{Fixtures: map[string]*spec.Fixture{}, Cells: map[string]*spec.Cell{}, Kinds: kinds, lines: map[*string]int{}}
	var probs Problems
	last := map[string]int{}
	for _, src := range []struct {
		fsys fs.FS
		dir  string
	}{{suites, suitesDir}, {fixtures, fixturesDir}} {
		files, err := fs.Glob(src.fsys, "*.yaml")
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", src.dir, err)
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := readFS(src.fsys, f)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", f, err)
			}
			name := path.Join(src.dir, f)
			b.addFile(name, data, &probs)
			last[name] = lastLine(data)
		}
	}
	if len(b.Cells) == 0 && len(probs) == 0 {
		probs.add(suitesDir, 0, "add "+path.Join(suitesDir, "cells.yaml")+" with kind: Cells", "no gate cells defined")
	}
	validate(b, &probs)
	for name, line := range last {
		clampLines(probs, name, line)
	}
	if len(probs) > 0 {
		return b, probs
	}
	return b, nil
}

func (b *Bundle) addFile(name string, data []byte, probs *Problems) {
	if len(data) > MaxFileSize {
		probs.add(name, 1, "split it into files of cases on one feature area", "%s", tooLarge)
		return
	}
	if enc := utf16(data); enc != "" {
		probs.add(name, 1, "save it as UTF-8", "%s", enc)
		return
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			line, msg := yamlError(data, err)
			probs.add(name, line, "", "not valid YAML: %s", msg)
			return
		}
		if len(doc.Content) == 0 || emptyDoc(doc.Content[0]) {
			continue
		}
		if !checkAliases(name, doc.Content[0], probs) {
			continue
		}
		b.addDoc(name, doc.Content[0], probs)
	}
}

func (b *Bundle) addDoc(name string, n *yaml.Node, probs *Problems) {
	var head struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
	}
	_ = n.Decode(&head)
	if head.APIVersion != spec.APIVersion {
		probs.add(name, n.Line, "the first lines of every document are apiVersion: "+spec.APIVersion+" and kind", "apiVersion is %q", head.APIVersion)
		return
	}
	d := decoder{file: name, errs: probs, lines: b.lines}
	switch head.Kind {
	case "Suite":
		s := &spec.Suite{}
		d.decode(n, reflectValue(s))
		b.Suites = append(b.Suites, s)
	case "Fixture":
		f := &spec.Fixture{}
		d.decode(n, reflectValue(f))
		if prev, dup := b.Fixtures[f.Name]; dup {
			probs.add(name, n.Line, "", "fixture %q is already defined at %s:%d", f.Name, prev.Pos.File, prev.Pos.Line)
			return
		}
		b.Fixtures[f.Name] = f
	case "Cells":
		cs := &spec.CellSet{}
		d.decode(n, reflectValue(cs))
		for i := range cs.Cells {
			c := &cs.Cells[i]
			if prev, dup := b.Cells[c.Name]; dup {
				probs.add(name, c.Pos.Line, "", "cell %q is already defined at %s:%d", c.Name, prev.Pos.File, prev.Pos.Line)
				continue
			}
			b.Cells[c.Name] = c
			b.CellOrder = append(b.CellOrder, c.Name)
		}
	case "Register":
		r := &spec.Register{}
		d.decode(n, reflectValue(r))
		for i := range r.Entries {
			b.Register = append(b.Register, &r.Entries[i])
		}
	case "Claims":
		cs := &spec.ClaimSet{}
		d.decode(n, reflectValue(cs))
		for i := range cs.Claims {
			b.Claims = append(b.Claims, &cs.Claims[i])
		}
	default:
		probs.add(name, n.Line, probs.closest(head.Kind, []string{"Suite", "Fixture", "Cells", "Register", "Claims"}), "unknown kind %q", head.Kind)
	}
}

// utf16 says why data is not UTF-8 text where it starts with a UTF-16
// byte-order mark, which the YAML decoder follows: its lines would then not
// be the lines a problem's file:line counts.
func utf16(data []byte) string {
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return "not UTF-8 text: the file starts with a UTF-16 byte-order mark"
	}
	return ""
}

package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/draconform/draconform/tools/internal/textline"
)

// Module names a Go module the prototype patches.
type Module string

// The three modules the prototype copies and patches; every other module is
// used as released.
const (
	Kubernetes Module = "k8s.io/kubernetes"
	API        Module = "k8s.io/api"
	DRA        Module = "k8s.io/dynamic-resource-allocation"
)

// Mode says what an edit does at its anchor.
type Mode int

const (
	InsertBefore Mode = iota
	InsertAfter
	Replace
)

func (m Mode) String() string {
	switch m {
	case InsertBefore:
		return "before"
	case InsertAfter:
		return "after"
	case Replace:
		return "replace"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Edit is one anchored change to one file of one module. Anchor must occur
// exactly once in the file, or, when Within is set, exactly once in the
// declaration that starts at the one occurrence of Within (up to the first
// "\n}\n" after it, the end of a gofmt-formatted top-level declaration).
type Edit struct {
	Module Module
	File   string // slash-separated, relative to the module root
	Within string // optional: a unique string that starts the searched declaration
	Anchor string
	Mode   Mode
	Text   string
}

// Group is a set of edits for one concern, named for progress output.
type Group struct {
	Name  string
	Edits []Edit
}

func before(m Module, file, anchor, text string) Edit {
	return Edit{Module: m, File: file, Anchor: anchor, Mode: InsertBefore, Text: text}
}

func after(m Module, file, anchor, text string) Edit {
	return Edit{Module: m, File: file, Anchor: anchor, Mode: InsertAfter, Text: text}
}

func replace(m Module, file, anchor, text string) Edit {
	return Edit{Module: m, File: file, Anchor: anchor, Mode: Replace, Text: text}
}

// in limits the anchor search to the declaration starting at within.
func (e Edit) in(within string) Edit {
	e.Within = within
	return e
}

func (e Edit) where() string {
	s := string(e.Module) + "/" + e.File
	if e.Within != "" {
		s += " (in " + textline.Summary(e.Within, " ...") + ")"
	}
	return s
}

// applyText applies e to content and returns the result, or an error naming
// the file and the anchor when the anchor (or Within) is missing or ambiguous.
func applyText(content string, e Edit) (string, error) {
	if e.Anchor == "" {
		return "", fmt.Errorf("%s: edit has an empty anchor", e.where())
	}
	lo, hi := 0, len(content)
	if e.Within != "" {
		if n := strings.Count(content, e.Within); n != 1 {
			return "", fmt.Errorf("%s: Within %q occurs %d times, want exactly 1", e.where(), e.Within, n)
		}
		lo = strings.Index(content, e.Within)
		if end := strings.Index(content[lo:], "\n}\n"); end >= 0 {
			hi = lo + end + len("\n}\n")
		}
	}
	region := content[lo:hi]
	if n := strings.Count(region, e.Anchor); n != 1 {
		return "", fmt.Errorf("%s: anchor %q occurs %d times, want exactly 1", e.where(), e.Anchor, n)
	}
	at := lo + strings.Index(region, e.Anchor)
	end := at + len(e.Anchor)
	switch e.Mode {
	case InsertBefore:
		return content[:at] + e.Text + content[at:], nil
	case InsertAfter:
		return content[:end] + e.Text + content[end:], nil
	case Replace:
		return content[:at] + e.Text + content[end:], nil
	}
	return "", fmt.Errorf("%s: unknown edit mode %v", e.where(), e.Mode)
}

// ApplyEdits applies edits, in order, to the module copies under roots
// (module -> directory). Each file is read once and written once. It returns
// the edited files, sorted, relative to their module ("module/path").
func ApplyEdits(roots map[Module]string, edits []Edit) ([]string, error) {
	type key struct {
		m    Module
		file string
	}
	var order []key
	byFile := map[key][]Edit{}
	for _, e := range edits {
		k := key{e.Module, e.File}
		if _, ok := byFile[k]; !ok {
			order = append(order, k)
		}
		byFile[k] = append(byFile[k], e)
	}
	var done []string
	for _, k := range order {
		root, ok := roots[k.m]
		if !ok {
			return nil, fmt.Errorf("no source directory for module %s (editing %s)", k.m, k.file)
		}
		path := filepath.Join(root, filepath.FromSlash(k.file))
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("prototype edit of %s/%s: %w", k.m, k.file, err)
		}
		content := string(b)
		for _, e := range byFile[k] {
			if content, err = applyText(content, e); err != nil {
				return nil, err
			}
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(content), fi.Mode().Perm()|0o200); err != nil {
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		done = append(done, string(k.m)+"/"+k.file)
	}
	sort.Strings(done)
	return done, nil
}

// hashEdits feeds every field of every edit into a hash, so that any change to
// the patch, however small, gives a new cache key.
func hashEdits(extra []string, groups []Group) string {
	h := sha256.New()
	for _, s := range extra {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	for _, g := range groups {
		io.WriteString(h, "group\x00"+g.Name+"\x00")
		for _, e := range g.Edits {
			for _, s := range []string{string(e.Module), e.File, e.Within, e.Anchor, e.Mode.String(), e.Text} {
				io.WriteString(h, s)
				h.Write([]byte{0})
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// site is one declaration of one file, where several edits anchor.
type site struct {
	module Module
	file   string
	within string
}

func (s site) replace(anchor, text string) Edit {
	return replace(s.module, s.file, anchor, text).in(s.within)
}

func (s site) before(anchor, text string) Edit {
	return before(s.module, s.file, anchor, text).in(s.within)
}

func (s site) after(anchor, text string) Edit {
	return after(s.module, s.file, anchor, text).in(s.within)
}

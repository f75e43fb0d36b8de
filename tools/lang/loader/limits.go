package loader

import (
	"fmt"
	"io/fs"

	"github.com/draconform/draconform/tools/lang/yamlpos"
	"gopkg.in/yaml.v3"
)

// Spec files come from people, and from anyone who sends one: a vendor's
// product or driver profile, a suite in a pull request. The loader answers
// every file with a clean load or problems at file:line, in bounded time and
// memory. These are its bounds.
const (
	// MaxFileSize bounds a spec file. The largest shipped suite is about
	// 24 KB; a file 40 times that is not one a person wrote.
	MaxFileSize = 1 << 20
	// maxAliasNodes bounds how many nodes YAML aliases may add to one
	// document when expanded, so that a "billion laughs" document is
	// refused before anything walks it (the decoder here, and the
	// variable expansion that copies objects at run time).
	maxAliasNodes = 100_000
)

// tooLarge is the message for a file over MaxFileSize.
var tooLarge = fmt.Sprintf("larger than %d bytes (1 MiB), the most a spec file may have", MaxFileSize)

// readFS reads name from fsys, at most MaxFileSize+1 bytes of it: enough to
// tell that a file is too large without reading all of it.
func readFS(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return yamlpos.ReadLimited(f, MaxFileSize)
}

// readFile reads a file named on the command line the same way.
func readFile(path string) ([]byte, error) { return yamlpos.ReadFile(path, MaxFileSize) }

// yamlError is yamlpos.Error of a yaml.v3 error, cleaned of its noise.
func yamlError(data []byte, err error) (int, string) { return yamlpos.Error(data, cleanYAMLError(err)) }

func lastLine(data []byte) int { return yamlpos.LastLine(data) }

// emptyDoc tells a document with nothing written in it, such as the one a
// trailing --- starts, from one that is written null (~ or null).
func emptyDoc(n *yaml.Node) bool {
	return isNull(n) && n.Value == "" && n.Anchor == ""
}

// clampLines moves problems of file that name a line after its last to
// its last.
func clampLines(probs Problems, file string, last int) {
	for i := range probs {
		if probs[i].File == file && probs[i].Line > last {
			probs[i].Line = last
		}
	}
}

// checkAliases refuses a document whose aliases refer to a node that
// contains them (a cycle, which yaml.v3 parses, and which every walk of the
// tree would follow forever) or expand it by more than maxAliasNodes nodes.
// It reports the alias where that happens, and tells whether the document
// may be walked.
func checkAliases(name string, n *yaml.Node, probs *Problems) bool {
	x := expansion{size: map[*yaml.Node]int{}, open: map[*yaml.Node]bool{}}
	x.walk(n)
	if x.line > 0 {
		probs.add(name, x.line, x.hint, "%s", x.msg)
		return false
	}
	return true
}

type expansion struct {
	size    map[*yaml.Node]int  // an anchored node's size with its aliases expanded
	open    map[*yaml.Node]bool // the anchored nodes being walked: an alias to one is a cycle
	aliased int                 // the nodes aliases added so far
	line    int                 // where the walk stopped, if it did
	msg     string
	hint    string
}

// walk returns n's size with its aliases expanded, at most maxAliasNodes+1
// more than its own.
func (x *expansion) walk(n *yaml.Node) int {
	if x.line > 0 || n == nil {
		return 1
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		target := n.Alias
		if x.open[target] {
			x.line, x.msg = n.Line, fmt.Sprintf("alias *%s is inside the node it names, so it never ends", n.Value)
			x.hint = "an anchor must come after the whole node it names"
			return 1
		}
		s, done := x.size[target]
		if !done {
			s = x.walk(target)
		}
		x.aliased += s
		if x.aliased > maxAliasNodes {
			x.line, x.msg = n.Line, fmt.Sprintf("aliases expand the document by more than %d nodes", maxAliasNodes)
			x.hint = "write the values out, or use fixtures and variables"
		}
		return s
	}
	// Only an anchored node can be named by an alias: only its size is kept.
	anchored := n.Anchor != ""
	if s, done := x.size[n]; done && anchored {
		return s
	}
	if anchored {
		x.open[n] = true
	}
	s := 1
	for _, c := range n.Content {
		s = min(s+x.walk(c), maxAliasNodes+1)
		if x.line > 0 {
			break
		}
	}
	if anchored {
		delete(x.open, n)
		x.size[n] = s
	}
	return s
}

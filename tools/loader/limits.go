package loader

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

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
	return io.ReadAll(io.LimitReader(f, MaxFileSize+1))
}

// readFile reads a file named on the command line the same way.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileSize+1))
}

var yamlLine = regexp.MustCompile(`^line ([0-9]+): `)

// yamlError turns an error of yaml.v3's parser into a line and a message.
// yaml.v3 numbers lines from 1 for scanner errors but from 0 for parser
// errors, leaves the number out when it would be 0, and never gives one
// for bytes that are not UTF-8 text or for an unknown anchor; this gives
// every error the 1-based line of what it is about.
func yamlError(data []byte, err error) (int, string) {
	msg := strings.TrimPrefix(cleanYAMLError(err), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		msg = msg[len(m[0]):]
		line, convErr := strconv.Atoi(m[1])
		if convErr != nil || line < 1 {
			return 1, msg
		}
		if parserProblem(msg) {
			line++
		}
		// At the end of a file without a final line break, the
		// parser counts one line more than there is.
		return min(line, lastLine(data)), msg
	}
	if off := firstBadChar(data); off >= 0 {
		return lineAt(data, off), fmt.Sprintf("%s (byte %d)", msg, off)
	}
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name = strings.TrimSuffix(name, "' referenced")
		if off := aliasAt(data, name); off >= 0 {
			return lineAt(data, off), msg
		}
	}
	// The parser leaves the line out when it is the first.
	return 1, msg
}

// parserProblem tells the problems of yaml.v3's parser, whose line is
// 0-based, from those of its scanner, whose line is 1-based.
func parserProblem(msg string) bool {
	switch msg {
	case "found duplicate %TAG directive", "found duplicate %YAML directive",
		"found incompatible YAML document", "found undefined tag handle":
		return true
	}
	return strings.HasPrefix(msg, "did not find expected ")
}

// firstBadChar is the offset of the first byte yaml.v3's reader refuses
// (not UTF-8, or a control character YAML does not allow), or -1.
// A byte-order mark at the start means UTF-16 or UTF-8 text the reader
// decodes itself.
func firstBadChar(data []byte) int {
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return -1
	}
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			return off
		}
		printable := r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7e) || r == 0x85 ||
			(r >= 0xa0 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd && (r != 0xfeff || off == 0)) || r >= 0x10000
		if !printable {
			return off
		}
		off += size
	}
	return -1
}

// aliasAt is the offset of the first alias *name in data, or -1.
func aliasAt(data []byte, name string) int {
	for from := 0; ; {
		i := bytes.Index(data[from:], []byte("*"+name))
		if i < 0 {
			return -1
		}
		end := from + i + 1 + len(name)
		if end == len(data) || strings.ContainsRune(" \t\r\n,]}", rune(data[end])) {
			return from + i
		}
		from += i + 1
	}
}

// emptyDoc tells a document with nothing written in it, such as the one a
// trailing --- starts, from one that is written null (~ or null).
func emptyDoc(n *yaml.Node) bool {
	return isNull(n) && n.Value == "" && n.Anchor == ""
}

// lastLine is the line of data's last byte. yaml.v3 puts a value missing
// at the end of a file without a final line break on the line after.
func lastLine(data []byte) int {
	return lineAt(data, len(data)-1)
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

// lineAt is the 1-based line of data's byte at off, counting line breaks
// as YAML does: LF, CR, CR LF, NEL, LS and PS.
func lineAt(data []byte, off int) int {
	line := 1
	for i := 0; i < min(off, len(data)); i++ {
		switch {
		case data[i] == '\n':
			line++
		case data[i] == '\r':
			if i+1 >= len(data) || data[i+1] != '\n' {
				line++
			}
		case data[i] == 0xc2 && i+1 < len(data) && data[i+1] == 0x85,
			data[i] == 0xe2 && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xa8 || data[i+2] == 0xa9):
			line++
		}
	}
	return line
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

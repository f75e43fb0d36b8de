// Package yamlpos finds the line a YAML problem is about, for the loaders
// that answer every input with file:line (the spec loader, the test
// driver's config), and reads their files within a bound.
package yamlpos

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ReadLimited reads at most max+1 bytes of r: enough to tell that a file is
// too large without reading all of it.
func ReadLimited(r io.Reader, max int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, max+1))
}

// ReadFile is ReadLimited of the file at path.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLimited(f, max)
}

var yamlLine = regexp.MustCompile(`^line ([0-9]+): `)

// Error turns the text of a yaml.v3 parser error about data into a line
// and a message. yaml.v3 numbers lines from 1 for scanner errors but from 0
// for parser errors, leaves the number out when it would be 0, and never
// gives one for bytes that are not UTF-8 text or for an unknown anchor;
// this gives every error the 1-based line of what it is about.
func Error(data []byte, text string) (int, string) {
	msg := strings.TrimPrefix(text, "yaml: ")
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
		return min(line, LastLine(data)), msg
	}
	if off := FirstBadChar(data); off >= 0 {
		return LineAt(data, off), fmt.Sprintf("%s (byte %d)", msg, off)
	}
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name = strings.TrimSuffix(name, "' referenced")
		if off := AliasAt(data, name); off >= 0 {
			return LineAt(data, off), msg
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

// FirstBadChar is the offset of the first byte yaml.v3's reader refuses
// (not UTF-8, or a control character YAML does not allow), or -1. A
// byte-order mark at the start means UTF-16 or UTF-8 text the reader
// decodes itself.
func FirstBadChar(data []byte) int {
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

// AliasAt is the offset of the first alias *name in data, or -1.
func AliasAt(data []byte, name string) int {
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

// LastLine is the line of data's last byte. yaml.v3 puts a value missing
// at the end of a file without a final line break on the line after.
func LastLine(data []byte) int {
	return LineAt(data, len(data)-1)
}

// LineAt is the 1-based line of data's byte at off, counting line breaks
// as YAML does: LF, CR, CR LF, NEL, LS and PS.
func LineAt(data []byte, off int) int {
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

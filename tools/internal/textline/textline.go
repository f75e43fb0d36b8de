// Package textline gives the first line of a text that may have more, for
// a message that has room for one: an error's, a command's output, an
// edit's anchor.
package textline

import "strings"

// First is the first line of s, the space around s trimmed.
func First(s string) string {
	line, _ := first(s)
	return line
}

// Summary is First followed by more when lines were left out, so that a
// reader knows there is more to see.
func Summary(s, more string) string {
	line, cut := first(s)
	if cut {
		return line + more
	}
	return line
}

func first(s string) (line string, cut bool) {
	line, _, cut = strings.Cut(strings.TrimSpace(s), "\n")
	return line, cut
}

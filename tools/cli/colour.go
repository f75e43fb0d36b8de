package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// colour says whether a verb may write ANSI colour codes to s.Out: only to
// a terminal, and never with --no-color or the environment variable
// NO_COLOR set (https://no-color.org), so that logs, pipes and CI files
// hold plain text.
func colour(s Streams, terminal func(io.Writer) bool, getenv func(string) string) bool {
	return !s.NoColor && getenv("NO_COLOR") == "" && terminal(s.Out)
}

// isTerminal says whether w is a terminal; /dev/null and files, character
// devices or not, are not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

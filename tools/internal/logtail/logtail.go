// Package logtail reads the ends of logs: the last lines of a text, and the
// current run of a log file to which a process supervisor (the embedded
// provider) appends every run of a component after a marked header. The
// header's format lives here, beside the reader that relies on it.
package logtail

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Mark starts every line the supervisor itself writes into a log.
const Mark = "===== "

// window bounds how much of a log CurrentRun reads: enough for hours of a
// scheduler at --v=2 in one case, small enough to read every second.
const window = 8 << 20

// Lines is the last n lines of text, without a trailing newline.
func Lines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WriteStart writes the header that opens a run: a "starting" line and the
// command line, both marked.
func WriteStart(w io.Writer, name, gates, bin string, args []string) {
	fmt.Fprintf(w, "\n%s%s starting %s with feature gates: %s\n%scommand: %s %s\n",
		Mark, stamp(), name, gates, Mark, bin, strings.Join(args, " "))
}

// WriteNote writes a supervisor's remark, marked so that it is not taken
// for the component's own output.
func WriteNote(w io.Writer, name, msg string) {
	fmt.Fprintf(w, "%s%s %s %s\n", Mark, stamp(), name, msg)
}

func stamp() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// CurrentRun is the part of the log at path after its last start header,
// read from its last few megabytes. A log with no header is one run.
func CurrentRun(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading log: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		if _, err := f.Seek(fi.Size()-window, io.SeekStart); err != nil {
			return "", fmt.Errorf("reading log %s: %w", path, err)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", fmt.Errorf("reading log %s: %w", path, err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	start := 0
	for i, l := range lines {
		if strings.HasPrefix(l, Mark) && strings.Contains(l, " starting ") {
			start = i + 1
		}
	}
	for start < len(lines) && strings.HasPrefix(lines[start], Mark+"command:") {
		start++
	}
	return strings.Join(lines[start:], ""), nil
}

// File is the last n lines of the current run of the log at path, headed
// by the file's name, as failure diagnostics show it.
func File(path string, n int) (string, error) {
	text, err := CurrentRun(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("log %s, current run:\n%s\n", path, Lines(text, n)), nil
}

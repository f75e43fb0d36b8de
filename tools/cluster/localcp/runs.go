package localcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/draconform/draconform/tools/cluster"
)

// runLogWindow bounds how much of a log CurrentRun reads: enough for hours
// of a scheduler at --v=2 in one case, small enough to read every second.
const runLogWindow = 8 << 20

// CurrentRun implements cluster.RunInspector: the process that runs comp
// now, and what it has logged since its start header.
func (c *Cluster) CurrentRun(_ context.Context, comp cluster.Component) (cluster.Run, error) {
	c.mu.Lock()
	p, ok := c.procs[comp]
	c.mu.Unlock()
	if !ok {
		return cluster.Run{}, fmt.Errorf("local: %s does not run in cell %s", comp, c.cell)
	}
	text, err := currentRunLog(p.logPath)
	if err != nil {
		return cluster.Run{}, err
	}
	return cluster.Run{ID: strconv.Itoa(p.pid), Running: !p.exited(), Log: text}, nil
}

// currentRunLog returns the part of a log after its last start header
// (startProcess appends every run to one file), from the last runLogWindow
// bytes.
func currentRunLog(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading log: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > runLogWindow {
		if _, err := f.Seek(fi.Size()-runLogWindow, io.SeekStart); err != nil {
			return "", fmt.Errorf("reading log %s: %w", path, err)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", fmt.Errorf("reading log %s: %w", path, err)
	}
	// Each run starts with a marked "starting" line, then a marked
	// "command:" line; later marked lines are the provider's notes.
	lines := strings.SplitAfter(string(b), "\n")
	start := 0
	for i, l := range lines {
		if strings.HasPrefix(l, headerMark) && strings.Contains(l, " starting ") {
			start = i + 1
		}
	}
	for start < len(lines) && strings.HasPrefix(lines[start], headerMark+"command:") {
		start++
	}
	return strings.Join(lines[start:], ""), nil
}

// TailLog implements cluster.LogTailer: the last lines of what comp has
// logged in its current run (earlier runs of a restarted component would
// mislead).
func (c *Cluster) TailLog(_ context.Context, comp cluster.Component, n int) (string, error) {
	path := c.logPath(comp)
	text, err := currentRunLog(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("log %s, current run:\n%s\n", path, lastLines(text, n)), nil
}

// lastLines is the last n lines of text, without a trailing newline.
func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

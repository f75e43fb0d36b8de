package localcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
)

// ensureTestBinaries builds the binaries if needed. A cold build outlasts
// go test's default 10-minute timeout, so the build stops a minute before the
// test deadline with a clean failure; the go build cache keeps what was
// compiled, and the next run carries on from there.
func ensureTestBinaries(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	if dl, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(context.Background(), dl.Add(-time.Minute))
	}
	defer cancel()
	binDir, err := k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{Version: testVersion, Log: testLog{t}})
	if err != nil {
		if ctx.Err() != nil {
			t.Fatalf("%v\nthe build did not finish before the test deadline; compiled packages are cached, so rerun, "+
				"preferably with -timeout 40m", err)
		}
		t.Fatal(err)
	}
	return binDir
}

func containsLine(text string, parts ...string) bool {
	for line := range strings.Lines(text) {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Helper()
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// childrenOf lists processes whose parent is pid; an unreaped zombie counts.
func childrenOf(t *testing.T, pid int) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to inspect: %v", err)
	}
	var kids []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// Fields after the parenthesised command: state ppid ...
		s := string(stat)
		rest := s[strings.LastIndexByte(s, ')')+2:]
		f := strings.Fields(rest)
		if len(f) >= 2 && f[1] == strconv.Itoa(pid) {
			kids = append(kids, fmt.Sprintf("%s %s", e.Name(), s[strings.IndexByte(s, '(')+1:strings.LastIndexByte(s, ')')]))
		}
	}
	return kids
}

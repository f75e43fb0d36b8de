package logtail

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, tt := range []struct {
		text string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb", 5, "a\nb"},
		{"", 3, ""},
	} {
		if got := Lines(tt.text, tt.n); got != tt.want {
			t.Errorf("Lines(%q, %d) = %q, want %q", tt.text, tt.n, got, tt.want)
		}
	}
}

// A restarted component's earlier runs would mislead a diagnosis: only what
// follows the last header is the current run, and notes stay in it.
func TestCurrentRunStartsAfterTheLastHeader(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("log of a run with no header\n")
	WriteStart(&b, "kube-scheduler", "A=true", "/bin/s", []string{"--v=2"})
	b.WriteString("first run\n")
	WriteNote(&b, "kube-scheduler", "stopped")
	WriteStart(&b, "kube-scheduler", "A=false", "/bin/s", []string{"--v=2"})
	b.WriteString("second run 1\nsecond run 2\n")
	WriteNote(&b, "kube-scheduler", "still running 1s after SIGTERM; sent SIGKILL")
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := CurrentRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "first run") || strings.Contains(got, "command:") || !strings.HasPrefix(got, "second run 1\n") || !strings.Contains(got, "SIGKILL") {
		t.Errorf("current run = %q", got)
	}
	tail, err := File(path, 1)
	if err != nil || !strings.Contains(tail, "SIGKILL") || strings.Contains(tail, "second run 2") || !strings.Contains(tail, path) {
		t.Errorf("File(path, 1) = %q, %v", tail, err)
	}
	if _, err := File(filepath.Join(t.TempDir(), "absent"), 3); err == nil {
		t.Error("a missing log read without error")
	}
}

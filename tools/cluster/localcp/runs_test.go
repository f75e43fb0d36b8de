package localcp

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCurrentRunLogIsTheLastRun(t *testing.T) {
	log := "\n===== 2026-12-02T10:00:00Z kube-scheduler starting kube-scheduler with feature gates: (none)\n" +
		"===== command: kube-scheduler --v=2\n" +
		"first run line\n" +
		"===== 2026-12-02T10:01:00Z kube-scheduler still running 5s after SIGTERM; sent SIGKILL\n" +
		"\n===== 2026-12-02T10:01:01Z kube-scheduler starting kube-scheduler with feature gates: A=true\n" +
		"===== command: kube-scheduler --v=2 --feature-gates=A=true\n" +
		"second run line 1\nsecond run line 2\n"
	path := filepath.Join(t.TempDir(), "kube-scheduler.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := currentRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "second run line 1\nsecond run line 2\n"; got != want {
		t.Errorf("currentRunLog = %q, want %q", got, want)
	}
}

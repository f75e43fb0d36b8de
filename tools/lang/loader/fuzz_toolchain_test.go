package loader_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Go's fuzz coordinator before go1.27.3 can fail a target that found nothing
// with "context deadline exceeded" as -fuzztime ends (go.dev/issue/75804), a
// red CI with no crasher. make fuzz runs the fuzzers on go1.27.3 when the
// machine's Go is older, and on the machine's Go otherwise, never an older
// one. What make would run is read with make -n and a go that reports a
// chosen version.
func TestMakeFuzzRunsOnAGoWithoutTheDeadlineRace(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed; make test installs it (.ci/run)")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fakeGo := filepath.Join(t.TempDir(), "go")
	script := "#!/bin/sh\n[ \"$1 $2\" = \"env GOVERSION\" ] && echo \"$FAKE_GOVERSION\"\n"
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for version, wantSwitch := range map[string]bool{
		"go1.26.8":  true,
		"go1.27":    true,
		"go1.27.2":  true,
		"go1.27.3":  false,
		"go1.27.10": false,
		"go1.28.1":  false,
	} {
		cmd := exec.Command("make", "-s", "-n", "-C", root, "fuzz", "GO="+fakeGo)
		cmd.Env = append(os.Environ(), "FAKE_GOVERSION="+version)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n fuzz: %v\n%s", err, out)
		}
		targets := 0
		for _, line := range strings.Split(string(out), "\n") {
			if !strings.Contains(line, " -fuzz ") {
				continue
			}
			targets++
			if got := strings.HasPrefix(line, "GOTOOLCHAIN=go1.27.3 "+fakeGo+" test "); got != wantSwitch {
				t.Errorf("on %s, make fuzz runs %q; want it on go1.27.3: %v", version, line, wantSwitch)
			}
		}
		if targets == 0 {
			t.Fatalf("make -n fuzz runs no fuzz target:\n%s", out)
		}
	}
}

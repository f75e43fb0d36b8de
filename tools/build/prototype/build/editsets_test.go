package build

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editSetsGolden holds, per build (the prototype, each mutant, each
// variant), the full hash of the edits it applies and of what the mutation
// table says of it. The edits feed the build's cache key, so a refactoring
// of the tables that build them must leave every line as it is; a change of
// an edit meant to change it rewrites its line (the test prints them all).
const editSetsGolden = "testdata/editsets.golden"

func editSetLines() []string {
	lines := []string{"prototype " + hashEdits(keyParts(), EditSet(Options{}))}
	for _, m := range append(Mutants(), Variants()...) {
		said := sha256.Sum256([]byte(strings.Join([]string{m.Mistake, m.Reading, m.Omit, m.Equivalent}, "\x00")))
		lines = append(lines, m.Name+" "+hashEdits(keyParts(), EditSet(Options{Mutant: m.Name}))+" "+hex.EncodeToString(said[:8]))
	}
	return lines
}

func TestEditSetsAreAsRecorded(t *testing.T) {
	got := strings.Join(editSetLines(), "\n") + "\n"
	want, err := os.ReadFile(filepath.FromSlash(editSetsGolden))
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	wantLines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		name, _, _ := strings.Cut(l, " ")
		wantLines[name] = l
	}
	for _, l := range editSetLines() {
		name, _, _ := strings.Cut(l, " ")
		if wantLines[name] != l {
			t.Errorf("%s: edits or words differ from %s:\n got  %s\n want %s", name, editSetsGolden, l, wantLines[name])
		}
		delete(wantLines, name)
	}
	for name := range wantLines {
		t.Errorf("%s: in %s, but no longer built", name, editSetsGolden)
	}
	if !t.Failed() {
		t.Errorf("%s lists the builds in another order", editSetsGolden)
	}
	t.Logf("if every change is meant, %s becomes:\n%s", editSetsGolden, got)
}

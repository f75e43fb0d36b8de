package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeRecord(t *testing.T, dir, record string) {
	t.Helper()
	writeTree(t, dir, map[string]string{
		"ran-for-real.json":    record,
		"what-ran-for-real.md": "# W\n\nprose\n\n" + ranBegin + "old\n" + ranEnd,
	})
}

// The page lists each path under its status, a weak status in bold, and
// docs --check fails when the page's table was edited by hand (say, a
// status upgraded) instead of the record.
func TestRanForRealTableFollowsTheRecord(t *testing.T) {
	dir := t.TempDir()
	writeRecord(t, dir, `{"rows": [
	  {"area": "Nodes", "path": "the node", "status": "run for real", "shown_by": "make conformance", "detail": "kubelet, containerd", "evidence": "41 passed"},
	  {"area": "kind", "path": "kind's lookup", "status": "unit-tested only", "shown_by": "TestLookup"},
	  {"area": "Nodes", "path": "a pod | two", "status": "not yet run", "shown_by": ""}]}`)
	paths := map[string][]byte{}
	if err := AddRanForReal(paths, dir); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "what-ran-for-real.md")
	got := string(paths[page])
	want := "# W\n\nprose\n\n" + ranBegin + "3 paths: 1 run for real, 1 unit-tested only, 1 not yet run.\n" +
		"\n### Nodes\n\nRun for real:\n\n- the node: make conformance\n" +
		"\n**Not yet run:**\n\n- a pod | two\n" +
		"\n### kind\n\n**Unit-tested only:**\n\n- kind's lookup: TestLookup\n" + ranEnd
	if got != want {
		t.Fatalf("page:\n%s\nwant:\n%s", got, want)
	}
	upgraded := strings.Replace(got, "**Unit-tested only:**", "Run for real:", 1)
	if err := os.WriteFile(page, []byte(upgraded), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = map[string][]byte{}
	if err := AddRanForReal(paths, dir); err != nil {
		t.Fatal(err)
	}
	if string(paths[page]) == upgraded {
		t.Error("a status upgraded by hand on the page survives regeneration: docs --check would pass it")
	}
}

func TestRanForRealRefusesRowsThatSayNothing(t *testing.T) {
	for name, tc := range map[string]struct{ row, want string }{
		"a status of its own":    {`{"area": "a", "path": "p", "status": "mostly works", "shown_by": "x"}`, "is not one of"},
		"real, shown by nothing": {`{"area": "a", "path": "p", "status": "run for real", "shown_by": ""}`, "shown by nothing"},
		"no area":                {`{"area": "", "path": "p", "status": "not yet run", "shown_by": ""}`, "area and path are required"},
		"a long path":            {`{"area": "a", "path": "` + strings.Repeat("p", maxPath+1) + `", "status": "not yet run"}`, "say the rest in detail"},
		"a long proof":           {`{"area": "a", "path": "p", "status": "run for real", "shown_by": "` + strings.Repeat("s", maxShownBy+1) + `"}`, "the rest in evidence"},
		"an unknown field":       {`{"area": "a", "path": "p", "status": "not yet run", "date": "2026-12-07"}`, "unknown field"},
		"listed twice": {`{"area": "a", "path": "p", "status": "not yet run", "shown_by": ""},
		  {"area": "b", "path": "p", "status": "unit-tested only", "shown_by": "T"}`, "listed twice"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeRecord(t, dir, `{"rows": [`+tc.row+`]}`)
			err := AddRanForReal(map[string][]byte{}, dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "ran-for-real.json") {
				t.Errorf("got %v, want an error naming the record and %q", err, tc.want)
			}
		})
	}
	if err := AddRanForReal(map[string][]byte{}, t.TempDir()); err != nil {
		t.Errorf("no record leaves the page alone: %v", err)
	}
}

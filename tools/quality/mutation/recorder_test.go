package mutation

import (
	"path/filepath"
	"testing"

	"github.com/draconform/draconform/tools/build/mutants"
)

// Each result is in the file as soon as it is added, merged with the rows
// it held; survivors are this campaign's unkilled, non-equivalent mutants.
func TestRecorder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mutation.json")
	order := []string{"m1", "m2", "m3"}
	if err := mutants.SaveResults(path, []mutants.Result{{Provider: "m3", Mistake: "old"}}); err != nil {
		t.Fatal(err)
	}
	rec, err := LoadRecorder(path, order)
	if err != nil {
		t.Fatal(err)
	}
	killed := mutants.Result{Provider: "m1", Caught: []string{"a@x"}, Breaks: []mutants.Break{{Claim: "on", Cases: []string{"a@x"}}}}
	for _, r := range []mutants.Result{killed, {Provider: "m2", Caught: []string{"i@x"}}} {
		if err := rec.add(r); err != nil {
			t.Fatal(err)
		}
	}
	saved, err := mutants.LoadResults(path)
	if err != nil || len(saved) != 3 || saved[0].Provider != "m1" || saved[2].Provider != "m3" {
		t.Fatalf("file holds %+v, %v", saved, err)
	}
	if len(rec.Rows()) != 3 || len(rec.Fresh()) != 2 {
		t.Errorf("rows %d, fresh %d", len(rec.Rows()), len(rec.Fresh()))
	}
	if s := rec.Survivors(); len(s) != 1 || s[0].Provider != "m2" {
		t.Errorf("survivors %+v, want m2 (caught by an informing case only)", s)
	}
	if rec, err = LoadRecorder("", order); err != nil || rec.add(killed) != nil || len(rec.Rows()) != 1 {
		t.Errorf("without a file: %v", err)
	}
}

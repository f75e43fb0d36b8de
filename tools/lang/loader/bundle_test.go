package loader_test

import (
	"testing"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
)

// The shipped suites must always load cleanly: a broken YAML file in the repo
// fails here rather than at the start of a long conformance run.
func TestShippedSuitesLoad(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatalf("shipped suites do not load:\n%v", err)
	}
	if len(b.Suites) == 0 || len(b.Fixtures) == 0 || len(b.Cells) == 0 {
		t.Fatalf("loaded %d suites, %d fixtures, %d cells", len(b.Suites), len(b.Fixtures), len(b.Cells))
	}
}

package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// What --keep-on-failure kept of a failed case is said with its failure in
// the terminal, in junit.xml's failure text and in report.html.
func TestKeptIsSaidWithTheFailure(t *testing.T) {
	kept := "kept (--keep-on-failure): namespace dc-r-abc with Pod/p1\n  see it: kubectl -n dc-r-abc get all,resourceclaims"
	o := Outcome{ID: "s/a@c", Target: "kubeconfig", Suite: "s", Cell: "c", State: Failed, Message: "step 1 at s.yaml:3, x:\n  want: a", Kept: kept}
	block := FailureBlock(o, "    ", nil)
	if !strings.Contains(block, "    kept (--keep-on-failure): namespace dc-r-abc with Pod/p1\n      see it: kubectl -n dc-r-abc") {
		t.Errorf("the terminal's failure block lacks what was kept:\n%s", block)
	}
	if i, j := strings.Index(block, "rerun:"), strings.Index(block, "kept"); i < 0 || j < i {
		t.Errorf("kept is not said after the rerun command:\n%s", block)
	}
	data, err := JUnit(types.Report{}, []Outcome{o}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "kubectl -n dc-r-abc get all,resourceclaims") {
		t.Errorf("junit.xml lacks what was kept:\n%s", data)
	}
	var page bytes.Buffer
	if err := HTML(&page, []Outcome{o}, Run{}, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "kept (--keep-on-failure): namespace dc-r-abc") {
		t.Error("report.html lacks what was kept")
	}
	o.Kept = ""
	if strings.Contains(FailureBlock(o, "", nil), "kept") {
		t.Error("a failure with nothing kept says kept")
	}
}

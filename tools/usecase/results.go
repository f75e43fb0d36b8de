package usecase

import (
	"io"

	"github.com/draconform/draconform/tools/runner"
)

// Results shows a past run again from its output folder dir on out, judged
// again against the golden table when one is given; ok says it passed.
func Results(dir, golden string, out io.Writer) (ok bool, err error) {
	past, err := runner.LoadPastRun(dir)
	if err != nil {
		return false, refuse("%v", err)
	}
	ok, err = past.Show(out, golden)
	if err != nil {
		return false, failed(2, err)
	}
	return ok, nil
}

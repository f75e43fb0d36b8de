package runner

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/draconform/draconform/tools/internal/pidlock"
)

// OutputLockFile is held by the run writing an output folder. Two runs in one
// folder share its cell folders: their clusters' logs interleave, their
// shards overwrite each other's reports, and the cases of one fail for
// reasons that are the other's (seen with two `make test` in one checkout,
// whose e2e test writes to a fixed _output/e2e).
const OutputLockFile = ".draconform-run.lock"

// LockOutput takes the output folder dir for this process, or says which
// process has it. The lock goes with the process, however it ends.
func LockOutput(dir string) (unlock func(), err error) {
	unlock, err = pidlock.Take(filepath.Join(dir, OutputLockFile))
	var held *pidlock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("another draconform run (%s) is writing to %s; wait for it, or give this run another --out", held.Who(), dir)
	}
	if err != nil {
		return nil, fmt.Errorf("locking the output folder %s: %w", dir, err)
	}
	return unlock, nil
}

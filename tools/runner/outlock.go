package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/draconform/draconform/tools/build/k8sbuild"
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
	path := filepath.Join(dir, OutputLockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the output folder's lock: %w", err)
	}
	unlock, held, err := k8sbuild.TryLock(f)
	if unlock == nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if held {
			who := "another process"
			if pid := strings.TrimSpace(string(holder)); pid != "" {
				who = "process " + pid
			}
			return nil, fmt.Errorf("another draconform run (%s) is writing to %s; wait for it, or give this run another --out", who, dir)
		}
		return nil, fmt.Errorf("locking the output folder %s: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return unlock, nil
}

package localcp

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/draconform/draconform/tools/internal/pidlock"
)

// cellLockFile is held by the process whose cluster runs in a cell folder.
// Two clusters in one folder append to the same component logs, and the
// diagnostics of one then show the other's processes (a false failure once
// showed two schedulers' lines in one log, each binding the other's pods).
const cellLockFile = ".cluster.lock"

// lockCellDir takes dir for this cluster until unlock, or says which
// process runs a cluster there.
func lockCellDir(dir string) (unlock func(), err error) {
	unlock, err = pidlock.Take(filepath.Join(dir, cellLockFile))
	var held *pidlock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("local: the cell folder %s is in use by %s, which runs a cluster there: give this run another output folder", dir, held.Who())
	}
	if err != nil {
		return nil, fmt.Errorf("local: taking the cell folder: %w", err)
	}
	return unlock, nil
}

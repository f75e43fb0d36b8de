package pidlock

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// A second taker is refused with the holder's pid until the first unlocks.
func TestTakeRefusesASecondHolderUntilUnlocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	unlock, err := Take(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Take(path)
	var held *HeldError
	if !errors.As(err, &held) {
		t.Fatalf("second Take: %v; want a HeldError", err)
	}
	if want := "process " + strconv.Itoa(os.Getpid()); held.Who() != want {
		t.Errorf("Who() = %q; want %q", held.Who(), want)
	}
	unlock()
	again, err := Take(path)
	if err != nil {
		t.Fatalf("Take after unlock: %v", err)
	}
	again()
}

package procstat

import (
	"os"
	"strconv"
	"testing"
)

// A command with spaces and a ')' of its own does not shift the fields.
func TestParseSkipsTheCommand(t *testing.T) {
	f := parse("4242 (a b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 10000 100\n")
	if len(f) < 20 || f[0] != "S" || f[1] != "17" || f[19] != "987654" {
		t.Errorf("parse = %q: want state S, parent 17, start 987654", f)
	}
	if parse("no command here") != nil || parse("1 (x)") != nil {
		t.Error("a line without fields after the command parsed")
	}
}

func TestFieldsOfThisProcess(t *testing.T) {
	f := Fields(os.Getpid())
	if len(f) < 20 || f[1] != strconv.Itoa(os.Getppid()) {
		t.Errorf("Fields(self) = %q: want the parent %d second", f, os.Getppid())
	}
	if Fields(-1) != nil {
		t.Error("Fields of no process is not nil")
	}
}

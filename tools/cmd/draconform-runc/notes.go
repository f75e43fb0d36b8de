package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// logEnv names a file where the wrapper also writes what it dropped or
// refused: the embedded node gives its containerd (and so the shims and
// this wrapper) one among the cell's logs.
const logEnv = "DRACONFORM_RUNC_LOG"

// notes is where the wrapper says what it did to a container.
type notes struct {
	runcLog, runcLogFormat string // runc's --log and --log-format
	ownLog                 string // logEnv's file, if set
	stderr                 io.Writer
	now                    func() time.Time
}

func notesFor(inv invocation, ownLog string) notes {
	return notes{runcLog: inv.logFile, runcLogFormat: inv.logFormat, ownLog: ownLog, stderr: os.Stderr, now: time.Now}
}

// warn names something dropped from a document: in the wrapper's own log
// and in runc's, at warning level. Not on stderr: for create, go-runc
// gives runc the container's own stdio, so it would show as the
// container's output.
func (n notes) warn(msg string) {
	if !n.write("warning", msg) {
		fmt.Fprintf(n.stderr, "draconform-runc: %s\n", msg)
	}
}

// fail says why the wrapper refuses to run runc: on stderr, and in runc's
// log at error level, where containerd's shim reads the last error into
// the one it returns (so the kubelet's event names the reason), and in the
// wrapper's own log.
func (n notes) fail(err error) {
	fmt.Fprintf(n.stderr, "draconform-runc: %v\n", err)
	n.write("error", err.Error())
}

// write appends msg to runc's log and the own log, and says whether
// either took it.
func (n notes) write(level, msg string) bool {
	msg = "draconform-runc: " + msg
	at := n.now().UTC().Format(time.RFC3339Nano)
	wrote := false
	if n.runcLog != "" {
		line := fmt.Sprintf("time=%q level=%s msg=%q\n", at, level, msg) // logrus's text format, runc's default
		if n.runcLogFormat == "json" {
			data, _ := json.Marshal(map[string]string{"level": level, "msg": msg, "time": at})
			line = string(data) + "\n"
		}
		wrote = appendLine(n.runcLog, line) == nil
	}
	if n.ownLog != "" && appendLine(n.ownLog, fmt.Sprintf("%s %s %s\n", at, level, msg)) == nil {
		wrote = true
	}
	return wrote
}

// appendLine adds one line to path in one write, so the lines of wrappers
// running side by side do not mix.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

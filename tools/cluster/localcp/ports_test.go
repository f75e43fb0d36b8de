package localcp

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/build/k8sbuild"
)

// A busy port, as kube-scheduler's log tail shows it in diedError.
var errPortTaken = errors.New(`kube-scheduler exited during start (exit status 1); log x.log, last lines:
    E1203 10:14:11.388966 run.go:72] "command failed" err="failed to create listener: failed to listen on 127.0.0.1:37635: listen tcp 127.0.0.1:37635: bind: address already in use"`)

func TestStartsAgainWhenAnotherProcessTookThePort(t *testing.T) {
	var log bytes.Buffer
	c := &Cluster{cell: "capacity-on", log: k8sbuild.NewSyncWriter(&log)}
	tries := 0
	err := retryPortTaken(c, "kube-scheduler", func() error {
		tries++
		if tries < 3 {
			return errPortTaken
		}
		return nil
	})
	if err != nil || tries != 3 {
		t.Fatalf("after two lost ports: %v in %d tries; want a start on the third", err, tries)
	}
	if !strings.Contains(log.String(), "lost its port") {
		t.Errorf("the retry is not logged: %q", log.String())
	}
}

func TestGivesUpAfterThreeLostPortsAndAtOnceOnOtherFailures(t *testing.T) {
	c := &Cluster{cell: "capacity-on", log: k8sbuild.NewSyncWriter(&bytes.Buffer{})}
	tries := 0
	err := retryPortTaken(c, "kube-scheduler", func() error { tries++; return errPortTaken })
	if !errors.Is(err, errPortTaken) || tries != portAttempts {
		t.Errorf("a port lost every time: %v after %d tries, want the error after %d", err, tries, portAttempts)
	}
	tries = 0
	bad := errors.New("kube-scheduler exited during start: unrecognized feature gate: Bogus")
	if err := retryPortTaken(c, "kube-scheduler", func() error { tries++; return bad }); !errors.Is(err, bad) || tries != 1 {
		t.Errorf("a failure that is not a lost port: %v after %d tries, want it at once", err, tries)
	}
}

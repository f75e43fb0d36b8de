// Command draconform-runc stands in for runc under containerd (runc runtime
// option BinaryName) on hosts where runc cannot honour all the CRI plugin
// asks for: the capability bounding set of this machine lacks
// CAP_SYS_RESOURCE, so runc fails to keep that capability, and without it no
// process may lower oom_score_adj below 0, while the CRI plugin gives every
// sandbox -998 and kubelet gives guaranteed pods -997. The seccomp profile
// the CRI plugin gives every container (the runtime's default) is kept:
// only a part that the real runc says, in `runc features`, it cannot apply
// here (a filter flag this kernel or libseccomp lacks, an architecture it
// does not know) is dropped, and named (seccomp.go, notes.go); a runc
// without seccomp support gets no container that asks for a profile. It
// edits the OCI documents runc is about to read and then execs the real
// runc, which is the file named runc next to this executable. The same
// wrapper lets a Docker engine run kind's privileged nodes here.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/draconform/draconform/tools/host/capabilities"
)

// wrapper is what one invocation knows of this machine.
type wrapper struct {
	// unavailable are the capabilities this host's bounding set lacks (on
	// the machine this was written on, CAP_SYS_RESOURCE): runc cannot grant
	// them, and asking for one fails the whole container.
	unavailable map[string]bool
	// seccomp says what the real runc can apply; asked only for a document
	// with a profile, since it runs runc once more.
	seccomp func() (seccompSupport, error)
	// note names, for the person reading the node's logs, what was
	// dropped from a document.
	note func(msg string)
}

func main() {
	inv := parseArgs(os.Args[1:])
	n := notesFor(inv, os.Getenv(logEnv))
	if err := run(inv, n); err != nil {
		n.fail(err)
		os.Exit(1)
	}
}

// run edits the document of inv and execs the real runc; it returns only
// on failure.
func run(inv invocation, n notes) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("locating own executable: %w", err)
	}
	// Next to the wrapper rather than on PATH, so that the shim's PATH, which
	// must contain the wrapper, cannot lead back to the wrapper itself or to
	// a different runc than the one built with it.
	runc := filepath.Join(filepath.Dir(self), "runc")
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return fmt.Errorf("reading the capability bounding set: %w", err)
	}
	unavailable, err := missingFromBoundingSet(string(status))
	if err != nil {
		return err
	}
	w := &wrapper{unavailable: unavailable, seccomp: featuresOf(runc), note: n.warn}
	if err := w.rewrite(inv); err != nil {
		return err
	}
	// Exec instead of running a child: the shim waits on this pid, signals
	// it, and hands over inherited descriptors (console socket, preserved
	// fds, stdio pipes) that must reach runc unchanged.
	argv := append([]string{runc}, os.Args[1:]...)
	if err := syscall.Exec(runc, argv, os.Environ()); err != nil {
		return fmt.Errorf("exec %s: %w", runc, err)
	}
	return nil
}

// missingFromBoundingSet names, as a set, the capabilities a
// /proc/<pid>/status text's bounding set lacks.
func missingFromBoundingSet(status string) (map[string]bool, error) {
	names, err := capabilities.MissingFrom(status)
	if err != nil {
		return nil, err
	}
	missing := make(map[string]bool, len(names))
	for _, n := range names {
		missing[n] = true
	}
	return missing, nil
}

// Command draconform-runc stands in for runc under containerd (runc runtime
// option BinaryName) on hosts where runc cannot honour what the CRI plugin
// asks for: the capability bounding set of this machine lacks
// CAP_SYS_RESOURCE, so runc fails to keep that capability, and without it no
// process may lower oom_score_adj below 0, while the CRI plugin gives every
// sandbox -998 and kubelet gives guaranteed pods -997; and the runc built
// beside it has no seccomp support (that would need libseccomp's headers,
// which the module proxy cannot give), while the CRI plugin gives every
// sandbox the runtime/default profile (removed only when the real runc
// says, in `runc features`, that it cannot apply one). It edits the OCI
// documents runc is about to read and then execs the real runc, which is the
// file named runc next to this executable. The same wrapper lets a Docker
// engine run kind's privileged nodes here.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/draconform/draconform/tools/host/capabilities"
)

// unavailable are the capabilities this host's bounding set lacks (on the
// machine this was written on, CAP_SYS_RESOURCE): runc cannot grant them,
// and asking for one fails the whole container. main computes them.
var unavailable map[string]bool

// runcHasSeccomp says whether the real runc can apply seccomp profiles; only
// a runc that cannot (the one built beside the embedded node's containerd)
// gets them removed. Docker's runc keeps every profile it is given.
var runcHasSeccomp = func() bool { return false }

func main() {
	self, err := os.Executable()
	if err != nil {
		fail(fmt.Errorf("locating own executable: %w", err))
	}
	// Next to the wrapper rather than on PATH, so that the shim's PATH, which
	// must contain the wrapper, cannot lead back to the wrapper itself or to
	// a different runc than the one built with it.
	runc := filepath.Join(filepath.Dir(self), "runc")
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fail(fmt.Errorf("reading the capability bounding set: %w", err))
	}
	if unavailable, err = missingFromBoundingSet(string(status)); err != nil {
		fail(err)
	}
	runcHasSeccomp = func() bool {
		out, err := exec.Command(runc, "features").Output()
		return err == nil && seccompEnabled(out)
	}
	if err := rewrite(os.Args[1:]); err != nil {
		fail(err)
	}
	// Exec instead of running a child: the shim waits on this pid, signals
	// it, and hands over inherited descriptors (console socket, preserved
	// fds, stdio pipes) that must reach runc unchanged.
	argv := append([]string{runc}, os.Args[1:]...)
	if err := syscall.Exec(runc, argv, os.Environ()); err != nil {
		fail(fmt.Errorf("exec %s: %w", runc, err))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "draconform-runc: %v\n", err)
	os.Exit(1)
}

// seccompEnabled reads `runc features` output: linux.seccomp.enabled is
// true only in a runc built with libseccomp.
func seccompEnabled(features []byte) bool {
	var f struct {
		Linux struct {
			Seccomp struct {
				Enabled *bool `json:"enabled"`
			} `json:"seccomp"`
		} `json:"linux"`
	}
	return json.Unmarshal(features, &f) == nil && f.Linux.Seccomp.Enabled != nil && *f.Linux.Seccomp.Enabled
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

// rewrite edits the document the given runc invocation will read, if any.
func rewrite(args []string) error {
	inv := parseArgs(args)
	switch inv.subcommand {
	case "create", "run":
		bundle := inv.bundle
		if bundle == "" {
			// runc reads config.json from its working directory when no
			// bundle is given.
			bundle = "."
		}
		return rewriteFile(filepath.Join(bundle, "config.json"), fixConfig)
	case "exec":
		if inv.processFile == "" {
			// Without --process runc builds the process from the container's
			// config and flags; the container was created through us already.
			return nil
		}
		return rewriteFile(inv.processFile, fixProcess)
	}
	return nil
}

// invocation is what the wrapper needs to know about a runc command line.
type invocation struct {
	subcommand  string
	bundle      string // --bundle/-b of create and run
	processFile string // --process/-p of exec
}

// Flags that consume the next argument when written without "=". Bool flags
// are not listed: anything unlisted is taken to stand alone, which for an
// unknown valued flag would at worst misread its value as the subcommand.
var (
	globalValueFlags = set("log", "log-format", "root", "rootless", "criu")
	createValueFlags = set("bundle", "b", "console-socket", "pidfd-socket", "pid-file", "preserve-fds")
	execValueFlags   = set("console-socket", "pidfd-socket", "cwd", "env", "e", "user", "u",
		"additional-gids", "g", "process", "p", "pid-file", "process-label", "apparmor",
		"cap", "c", "preserve-fds", "cgroup")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// parseArgs follows runc's command line, which is urfave/cli v1 on top of
// Go's flag package: global flags come first, then the subcommand. Flags may
// be written with one or two dashes and as -name=value or -name value.
func parseArgs(args []string) invocation {
	var inv invocation
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		name, _, hasValue, ok := splitFlag(a)
		if !ok {
			break
		}
		if !hasValue && globalValueFlags[name] {
			i++
		}
	}
	if i >= len(args) {
		return inv
	}
	inv.subcommand = args[i]
	rest := args[i+1:]
	switch inv.subcommand {
	case "create", "run":
		// urfave/cli moves flags ahead of positional arguments for these
		// commands, so a flag after the container id still counts.
		inv.bundle = lastFlagValue(rest, createValueFlags, set("bundle", "b"), false)
	case "exec":
		// exec sets SkipArgReorder: everything after the container id is the
		// command to run in the container, even if it looks like "-p".
		inv.processFile = lastFlagValue(rest, execValueFlags, set("process", "p"), true)
	}
	return inv
}

// lastFlagValue returns the value of the last occurrence of any flag in
// wanted, as Go's flag package lets a later string flag override an earlier
// one.
func lastFlagValue(args []string, valueFlags, wanted map[string]bool, stopAtPositional bool) string {
	var found string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, hasValue, ok := splitFlag(a)
		if !ok {
			if stopAtPositional {
				break
			}
			continue
		}
		if !hasValue && valueFlags[name] {
			if i+1 >= len(args) {
				break
			}
			i++
			value = args[i]
		}
		if wanted[name] {
			found = value
		}
	}
	return found
}

// splitFlag recognises "-name", "--name", "-name=value" and "--name=value"
// the way Go's flag package does; "-" alone is a positional argument.
func splitFlag(a string) (name, value string, hasValue, ok bool) {
	if len(a) < 2 || a[0] != '-' {
		return "", "", false, false
	}
	name = a[1:]
	if name[0] == '-' {
		name = name[1:]
	}
	if name == "" || name[0] == '-' || name[0] == '=' {
		return "", "", false, false
	}
	if k, v, cut := strings.Cut(name, "="); cut {
		return k, v, true, true
	}
	return name, "", false, true
}

// rewriteFile applies fix to the JSON object in path and writes the result
// back only if fix changed something, so documents that need no edit stay
// byte for byte as containerd wrote them.
func rewriteFile(path string, fix func(map[string]json.RawMessage) (bool, error)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// Raw messages keep every field this wrapper does not know, including
	// ones added to the runtime spec after it was written.
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	changed, err := fix(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !changed {
		return nil
	}
	out, err := marshal(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	// In place, keeping inode, owner and mode: runc only reads the file
	// after this process has exec'd it.
	return os.WriteFile(path, out, info.Mode().Perm())
}

// fixConfig edits a runtime bundle's config.json, where the process is a
// member of the top-level object.
func fixConfig(doc map[string]json.RawMessage) (bool, error) {
	seccompChanged, err := dropSeccomp(doc)
	if err != nil {
		return false, err
	}
	raw, ok := doc["process"]
	if !ok || isNull(raw) {
		return seccompChanged, nil
	}
	var process map[string]json.RawMessage
	if err := json.Unmarshal(raw, &process); err != nil {
		return false, fmt.Errorf("process: %w", err)
	}
	changed, err := fixProcess(process)
	if err != nil {
		return false, err
	}
	if !changed {
		return seccompChanged, nil
	}
	out, err := marshal(process)
	if err != nil {
		return false, err
	}
	doc["process"] = out
	return true, nil
}

// dropSeccomp removes linux.seccomp: a runc without seccomp support refuses
// any profile ("config provided but seccomp not supported"), so the
// containers run unconfined, as they do under a kubelet whose pods ask for
// no profile.
func dropSeccomp(doc map[string]json.RawMessage) (bool, error) {
	raw, ok := doc["linux"]
	if !ok || isNull(raw) {
		return false, nil
	}
	var linux map[string]json.RawMessage
	if err := json.Unmarshal(raw, &linux); err != nil {
		return false, fmt.Errorf("linux: %w", err)
	}
	if _, ok := linux["seccomp"]; !ok || runcHasSeccomp() {
		return false, nil
	}
	delete(linux, "seccomp")
	out, err := marshal(linux)
	if err != nil {
		return false, err
	}
	doc["linux"] = out
	return true, nil
}

// fixProcess edits an OCI process object: the one inside config.json, or the
// whole file runc exec --process reads.
func fixProcess(process map[string]json.RawMessage) (bool, error) {
	capsChanged, err := fixCapabilities(process)
	if err != nil {
		return false, err
	}
	oomChanged, err := fixOOMScoreAdj(process)
	if err != nil {
		return false, err
	}
	return capsChanged || oomChanged, nil
}

func fixCapabilities(process map[string]json.RawMessage) (bool, error) {
	raw, ok := process["capabilities"]
	if !ok || isNull(raw) {
		return false, nil
	}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(raw, &caps); err != nil {
		return false, fmt.Errorf("capabilities: %w", err)
	}
	changed := false
	// Every list of names, not only the five sets the spec has today, since
	// any set runc is asked to fill with the capability fails the same way.
	for setName, rawSet := range caps {
		var names []string
		if json.Unmarshal(rawSet, &names) != nil || names == nil {
			continue
		}
		kept := make([]string, 0, len(names))
		for _, n := range names {
			if !unavailable[n] {
				kept = append(kept, n)
			}
		}
		if len(kept) == len(names) {
			continue
		}
		out, err := marshal(kept)
		if err != nil {
			return false, err
		}
		caps[setName] = out
		changed = true
	}
	if !changed {
		return false, nil
	}
	out, err := marshal(caps)
	if err != nil {
		return false, err
	}
	process["capabilities"] = out
	return true, nil
}

func fixOOMScoreAdj(process map[string]json.RawMessage) (bool, error) {
	raw, ok := process["oomScoreAdj"]
	if !ok || isNull(raw) {
		return false, nil
	}
	var adj json.Number
	if err := json.Unmarshal(raw, &adj); err != nil {
		return false, fmt.Errorf("oomScoreAdj: %w", err)
	}
	if !strings.HasPrefix(adj.String(), "-") {
		return false, nil
	}
	// 0 is the closest value to the requested one that may be set here;
	// deleting the field would leave the container at whatever the shim
	// runs with instead.
	process["oomScoreAdj"] = json.RawMessage("0")
	return true, nil
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// marshal encodes without HTML escaping, so strings such as "<", ">" and "&"
// in annotations or args come out as containerd wrote them.
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(out) == 0 {
		return nil, errors.New("empty encoding")
	}
	return out, nil
}

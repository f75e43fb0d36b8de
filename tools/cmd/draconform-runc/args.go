package main

import "strings"

// invocation is what the wrapper needs to know about a runc command line.
type invocation struct {
	subcommand  string
	bundle      string // --bundle/-b of create and run
	processFile string // --process/-p of exec
	// logFile and logFormat are runc's global --log and --log-format:
	// containerd's shim reads the last error of that file into the error
	// it reports, so the wrapper's own go there too (notes.go).
	logFile, logFormat string
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
		name, value, hasValue, ok := splitFlag(a)
		if !ok {
			break
		}
		if !hasValue && globalValueFlags[name] {
			i++
			if i < len(args) {
				value = args[i]
			}
		}
		switch name {
		case "log":
			inv.logFile = value
		case "log-format":
			inv.logFormat = value
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

// Package mountinfo reads lines of /proc/<pid>/mountinfo, which both the
// embedded node (its cgroup mounts, what it must unmount) and the host
// snapshot (what a run left mounted) need.
package mountinfo

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Entry is what draconform reads of one mount.
type Entry struct {
	// MountPoint is field 5, octal escapes undone.
	MountPoint string
	// FSType and Source follow the " - " separator ("" where absent).
	FSType, Source string
}

// Parse reads one line; false for a line that is not one.
func Parse(line string) (Entry, bool) {
	pre, post, ok := strings.Cut(line, " - ")
	if !ok {
		return Entry{}, false
	}
	fields, postFields := strings.Fields(pre), strings.Fields(post)
	if len(fields) < 5 || len(postFields) < 1 {
		return Entry{}, false
	}
	e := Entry{MountPoint: Unescape(fields[4]), FSType: postFields[0]}
	if len(postFields) > 1 {
		e.Source = Unescape(postFields[1])
	}
	return e, true
}

// Unescape undoes the kernel's octal escapes (\040 for a space).
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Read reads the mountinfo file at path: its entries, and the lines that
// are not one (a caller that must account for every mount refuses them).
func Read(path string) (entries []Entry, bad []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	// A mount point may be up to PATH_MAX, and options add to it.
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if e, ok := Parse(sc.Text()); ok {
			entries = append(entries, e)
		} else {
			bad = append(bad, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return entries, bad, nil
}

// Under lists the mount points at or below dir, deepest first, so that
// unmounting them in order never meets a busy parent; a path mounted twice
// is listed twice.
func Under(entries []Entry, dir string) []string {
	dir = filepath.Clean(dir)
	var out []string
	for _, e := range entries {
		if e.MountPoint == dir || strings.HasPrefix(e.MountPoint, dir+"/") {
			out = append(out, e.MountPoint)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

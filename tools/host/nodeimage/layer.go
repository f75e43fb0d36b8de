package nodeimage

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"
)

// entry is one file of what is copied into a container: from disk (src), or
// given (data), or a symlink (link).
type entry struct {
	target string // absolute path in the container
	src    string
	data   []byte
	link   string
	mode   int64
}

// writeTar streams entries as the tar that `docker cp - CONTAINER:/` reads,
// with each entry's parent directories, so that nothing depends on what the
// container already has.
func writeTar(w io.Writer, entries []entry) error {
	tw := tar.NewWriter(w)
	dirs := map[string]bool{}
	now := time.Now()
	for _, e := range entries {
		if !path.IsAbs(e.target) || path.Clean(e.target) != e.target {
			return fmt.Errorf("path %q must be absolute and clean", e.target)
		}
		for _, dir := range parentDirs(e.target) {
			if dirs[dir] {
				continue
			}
			dirs[dir] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: now}); err != nil {
				return err
			}
		}
		name := strings.TrimPrefix(e.target, "/")
		if e.link != "" {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: e.link, Mode: 0o777, ModTime: now}); err != nil {
				return err
			}
			continue
		}
		if err := writeFile(tw, name, e, now); err != nil {
			return err
		}
	}
	return tw.Close()
}

func writeFile(tw *tar.Writer, name string, e entry, now time.Time) error {
	var r io.Reader
	size := int64(len(e.data))
	if e.src != "" {
		f, err := os.Open(e.src)
		if err != nil {
			return fmt.Errorf("reading %s for %s: %w", e.src, e.target, err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		r, size = f, fi.Size()
	} else {
		r = strings.NewReader(string(e.data))
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: e.mode, Size: size, ModTime: now}); err != nil {
		return err
	}
	if _, err := io.Copy(tw, r); err != nil {
		return fmt.Errorf("writing %s: %w", e.target, err)
	}
	return nil
}

// parentDirs lists the directories above p, outermost first, without "/".
func parentDirs(p string) []string {
	var out []string
	for dir := path.Dir(p); dir != "/"; dir = path.Dir(dir) {
		out = append([]string{strings.TrimPrefix(dir, "/")}, out...)
	}
	return out
}

// copyInto streams entries into container at /.
func copyInto(ctxDocker func(io.Reader) error, entries []entry) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeTar(pw, entries)) }()
	err := ctxDocker(pr)
	pr.CloseWithError(err)
	return err
}

// Package secretscan looks for credentials in files draconform writes for
// people to read and share: a run's output folder (which CI uploads) and a
// certification bundle (which a vendor publishes). It knows the shapes
// Kubernetes credentials take, so a test can show that none leaked, and
// certify can refuse to write a bundle that would publish one.
package secretscan

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// Finding is one credential-shaped line.
type Finding struct {
	File string
	Line int
	// Kind says what it looks like; the secret itself is never repeated.
	Kind string
}

func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Kind) }

type pattern struct {
	kind string
	re   *regexp.Regexp
}

// patterns are the shapes of the credentials a run handles: kubeconfig
// fields that carry them inline, PEM private keys, bearer tokens (service
// account tokens are JWTs), and the embedded control plane's static token
// file. Paths to credentials (client-key:, tokenFile:) are not secrets.
var patterns = []pattern{
	{"a PEM private key", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
	{"inline kubeconfig client key", regexp.MustCompile(`client-key-data:\s*\S`)},
	{"inline kubeconfig token", regexp.MustCompile(`(?m)^\s*token:\s*\S`)},
	{"a bearer token in a header", regexp.MustCompile(`(?i)authorization:\s*bearer\s+[A-Za-z0-9._~+/-]{8,}`)},
	{"a JSON Web Token (a service account token)", regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+`)},
	{"a bearer token in JSON", regexp.MustCompile(`"(?i:bearerToken|token)"\s*:\s*"[^"]{8,}"`)},
	// The embedded control plane's admin token (localcp: 32 random bytes
	// in hex) as its static token file holds it, with its group; bare, it
	// has the shape of a sha256 sum, which a run writes everywhere.
	{"a static token file's line (the embedded control plane's admin token)", regexp.MustCompile(`[0-9a-f]{32,},[^,\n]+,[^,\n]*,"?[^"\n]*system:masters`)},
	{"a token on a command line", regexp.MustCompile(`--token[= ][A-Za-z0-9._~+/-]{16,}`)},
}

// maxLine bounds one line read: a longer one (a minified JSON report) is
// read in pieces of this size, so that a credential in it is still seen
// unless it straddles a cut.
const maxLine = 1 << 20

// splitLines is bufio.ScanLines with lines cut at maxLine.
func splitLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if len(data) >= maxLine || (atEOF && len(data) > 0) {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// built says whether a file's head is that of a program (ELF) or an
// archive (tar, gzip, zstd): the programs and node images a run builds
// hold PEM markers and "token:" strings of their own (crypto libraries' and
// client-go's constants) and no credential of the run. Other files with
// NUL bytes (a log in UTF-16, a binary dump) are read like any other.
func built(head []byte) bool {
	return bytes.HasPrefix(head, []byte("\x7fELF")) || bytes.HasPrefix(head, []byte{0x1f, 0x8b}) ||
		bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}) || len(head) >= 262 && string(head[257:262]) == "ustar"
}

// Scan reads every regular text file under dir modified at or after since
// (the zero time: all) and returns the credential-shaped lines, in file
// order; programs and archives are passed over, other files with NUL bytes are read. Extra holds exact strings known to be secret (a token the caller
// issued), found wherever they appear.
func Scan(dir string, since time.Time, extra ...string) ([]Finding, error) {
	var out []Finding
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.ModTime().Before(since) {
			return nil
		}
		found, err := scanFile(path, extra)
		if err != nil {
			return err
		}
		out = append(out, found...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scanning %s for credentials: %w", dir, err)
	}
	return out, nil
}

func scanFile(path string, extra []string) ([]Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(262); built(head) {
		return nil, nil
	}
	var out []Finding
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 2*maxLine)
	sc.Split(splitLines)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		for _, p := range patterns {
			if p.re.Match(line) {
				out = append(out, Finding{File: path, Line: n, Kind: p.kind})
			}
		}
		for _, s := range extra {
			if s != "" && bytes.Contains(line, []byte(s)) {
				out = append(out, Finding{File: path, Line: n, Kind: "a credential this run issued"})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return out, nil
}

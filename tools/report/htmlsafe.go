package report

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// report.html is handed around (attached to a review, a certification
// bundle, a ticket): it must say nothing of the machine that ran it beyond
// paths relative to the run's output folder or the checkout, and never a
// credential, whatever a message, a log or the command line held.

// scrubber rewrites text for report.html: paths under a known folder
// become relative to it, other machine paths are cut to their last
// element, credentials are redacted.
type scrubber struct {
	roots []root // longest prefix first
}

// root is a folder paths under which are shown relative to it: dir
// followed by a slash or by anything that cannot continue a name.
type root struct {
	dir *regexp.Regexp
	as  string
	n   int
	out bool // the output folder
}

const redacted = "<redacted>"

// newScrubber knows the output folder, the checkout (the working
// directory, where draconform runs from) and the home folder.
func newScrubber(outDir string) scrubber {
	var s scrubber
	add := func(dir, as string, out bool) {
		if dir == "" {
			return
		}
		if abs, err := filepath.Abs(dir); err == nil && abs != "/" {
			re := regexp.MustCompile(regexp.QuoteMeta(abs) + `(/|$|[^\w.+@/-])`)
			s.roots = append(s.roots, root{re, as, len(abs), out})
		}
	}
	add(outDir, ".", true)
	if wd, err := os.Getwd(); err == nil {
		add(wd, ".", false)
	}
	if home, err := os.UserHomeDir(); err == nil {
		add(home, "~", false)
	}
	sort.SliceStable(s.roots, func(i, j int) bool { return s.roots[i].n > s.roots[j].n })
	return s
}

// machinePath is an absolute path under a folder of a machine (not an API
// path such as /apis/resource.k8s.io/v1, which a message may quote).
var machinePath = regexp.MustCompile(`/(?:home|root|tmp|work|var|usr|opt|srv|mnt|run|nix|private|Users|etc)(?:/[\w.+@:-]+)+/?`)

// secrets are credentials as they appear in text: a flag or setting
// named for a secret with its value, an Authorization header, a JWT.
var secrets = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(\bbearer\s+)([\w.~+/=-]+)`),
	regexp.MustCompile(`()\beyJ[\w-]{8,}\.[\w-]+\.[\w-]*`),
	// --token x, --token=x
	regexp.MustCompile(`(?i)((?:^|[\s"'])--?[\w-]*` + secretWord + `[\w-]*(?:=|\s+))("[^"]*"|'[^']*'|[^\s"',;]+)`),
	// token: x, password=x
	regexp.MustCompile(`(?i)(\b[\w-]*` + secretWord + `[\w-]*(?:=|:[ \t]*))("[^"]*"|'[^']*'|[^\s"',;]+)`),
}

const secretWord = `(?:token|password|passwd|secret|api-?key|credential)`

// Text scrubs free text: a message, a log, the cells' header.
func (s scrubber) Text(t string) string { return s.text(t, true) }

// text scrubs t; outRoot says whether paths under the output folder are
// shown relative to it (a command line's are relative to the checkout,
// from where it was typed).
func (s scrubber) text(t string, outRoot bool) string {
	for _, r := range s.roots {
		if r.out && !outRoot {
			continue
		}
		t = r.dir.ReplaceAllStringFunc(t, func(m string) string {
			next := m[r.n:]
			switch {
			case next == "/" && r.as == ".":
				return "" // a path under the folder, relative to it
			case next == "/":
				return r.as + "/"
			}
			return r.as + next
		})
	}
	t = machinePath.ReplaceAllStringFunc(t, func(p string) string {
		return "…/" + filepath.Base(p)
	})
	for _, re := range secrets {
		t = re.ReplaceAllString(t, "${1}"+redacted)
	}
	return t
}

// secretFlag is a flag whose value is a credential.
var secretFlag = regexp.MustCompile(`(?i)^--?[\w-]*` + secretWord + `[\w-]*$`)

// Command is a command line as report.html shows it: the program by its
// name, each path relative, the value of a secret flag redacted (given as
// --token=x or as --token x).
func (s scrubber) Command(args []string) string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case i == 0:
			a = filepath.Base(a)
		case secretFlag.MatchString(a) && i+1 < len(args):
			out = append(out, a)
			a = redacted
			i++
		default:
			if name, _, ok := strings.Cut(a, "="); ok && secretFlag.MatchString(name) {
				out = append(out, shellQuote(name)+"="+redacted)
				continue
			}
		}
		out = append(out, shellQuote(s.text(a, false)))
	}
	return strings.Join(out, " ")
}

// shellQuote quotes an argument a shell would split or expand.
func shellQuote(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]|&;<>(){}!#~") {
		return a
	}
	if a == redacted || strings.HasPrefix(a, "~/") && shellQuote(a[2:]) == a[2:] {
		return a // the shell expands ~/ to the same folder
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

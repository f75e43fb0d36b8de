package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// linkPattern finds Markdown inline links, [text](target).
var linkPattern = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// CheckLinks reports every link in files (Markdown, under the repository
// root) that a reader of a clone could not follow: a relative link whose
// target file does not exist, or whose #anchor names no heading of its
// target, so a section moved from one page to another cannot leave a dead
// link behind; and a link that leaves the repository, to a folder beside it
// or through another scheme than http(s), which works only on the machine it
// was written on. Web links are not followed.
func CheckLinks(root string, files []string) ([]string, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("checking links: %w", err)
	}
	var problems []string
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("checking links: %w", err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
				link := m[1]
				if web(link) {
					continue
				}
				path, anchor, _ := strings.Cut(link, "#")
				target := f
				if path != "" {
					target = filepath.Join(filepath.Dir(f), path)
				}
				if strings.Contains(path, ":") || strings.HasPrefix(path, "/") || !inside(root, target) {
					problems = append(problems, fmt.Sprintf("%s:%d: %s: leaves the repository, so a clone cannot follow it (link a page of the repository, or an http(s) address)", f, i+1, link))
					continue
				}
				if _, err := os.Stat(target); err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: %s: no such file", f, i+1, link))
					continue
				}
				if anchor == "" || !strings.HasSuffix(target, ".md") {
					continue
				}
				if anchors[target] == nil {
					if anchors[target], err = headingAnchors(target); err != nil {
						return nil, err
					}
				}
				if !anchors[target][anchor] {
					problems = append(problems, fmt.Sprintf("%s:%d: %s: %s has no heading with that anchor", f, i+1, link, target))
				}
			}
		}
	}
	return problems, nil
}

// web is a link to the web: http(s), the only scheme a page may link to.
func web(link string) bool {
	l := strings.ToLower(link)
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

// inside says whether path, made absolute, is root (absolute) or under it.
func inside(root, path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// headingAnchors is the anchors GitHub gives the headings of a Markdown
// file; lines in fenced code blocks are not headings.
func headingAnchors(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("checking links: %w", err)
	}
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		a := Anchor(title)
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out, nil
}

// Anchor is GitHub's anchor for a heading: lower case, punctuation but
// hyphens and underscores dropped, spaces made hyphens.
func Anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MarkdownFiles is every Markdown page of the repository at root (its
// README, docs/, a folder's own README), but for the folders it makes and
// does not publish (hidden ones such as .cache, and _output): the pages whose
// links CheckLinks checks.
func MarkdownFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "_output") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the docs: %w", err)
	}
	return files, nil
}

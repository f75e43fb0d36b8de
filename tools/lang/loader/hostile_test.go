package loader_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/lang/loader"
)

// loadSuite loads data as suites/s.yaml beside the test cells and the pod
// fixture, and returns the problems, one a line.
func loadSuite(t testing.TB, data string) string {
	t.Helper()
	sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "s.yaml": {Data: []byte(data)}}
	_, err := loader.Load(sfs, fstest.MapFS{"pod.yaml": {Data: []byte(podFixture)}}, steps.Kinds())
	if err == nil {
		return ""
	}
	return err.Error()
}

const head = "apiVersion: draconform.dev/v1alpha1\nkind: Suite\nname: s\n"

// A file that is not valid YAML is refused at the line of what is wrong:
// yaml.v3 numbers parser errors from 0, leaves the number out on the first
// line and for bytes that are no text, and counts a line too many at the
// end of a file without a final line break.
func TestYAMLErrorsNameTheirLine(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"parser error", "a: 1\nb:\n  - x\n - y\n", "suites/s.yaml:4: not valid YAML: did not find expected key"},
		{"parser error on line 2", "- a\nb: 1\n", "suites/s.yaml:2: not valid YAML: did not find expected '-' indicator"},
		{"unclosed list", head + "cells: [defaults\ncases: []\n", "suites/s.yaml:4: not valid YAML: did not find expected ',' or ']'"},
		{"scanner error", head + "description: \"open\n", "suites/s.yaml:4: not valid YAML: found unexpected end of stream"},
		{"end without a line break", "[", "suites/s.yaml:1: not valid YAML: did not find expected node content"},
		{"invalid UTF-8", head + "description: a\xffb\n", "suites/s.yaml:4: not valid YAML: invalid leading UTF-8 octet (byte 70)"},
		{"NUL", head + "\ndescription: a\x00b\n", "suites/s.yaml:5: not valid YAML: control characters are not allowed (byte 71)"},
		{"CR line breaks", "a: 1\rb: \xff\r", "suites/s.yaml:2: not valid YAML: invalid leading UTF-8 octet (byte 8)"},
		{"unknown anchor", head + "cells: [defaults]\nvars: {a: *nope}\n", "suites/s.yaml:5: not valid YAML: unknown anchor 'nope' referenced"},
		{"too deep", head + "x: " + strings.Repeat("[", 10001) + "\n", "suites/s.yaml:4: not valid YAML: exceeded max depth of 10000"},
		{"tab", head + "cases:\n\t- id: a\n", "suites/s.yaml:5: not valid YAML: found character that cannot start any token"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := loadSuite(t, tt.data); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// billionLaughs is nine levels of nine aliases: 9^9 nodes when expanded.
func billionLaughs(indent string) string {
	s := indent + "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i := 1; i < 10; i++ {
		s += fmt.Sprintf("%sa%d: &a%d [*a%d, *a%[4]d, *a%[4]d, *a%[4]d, *a%[4]d, *a%[4]d, *a%[4]d, *a%[4]d, *a%[4]d]\n", indent, i, i, i-1)
	}
	return s
}

// Aliases that never end, or that expand a document beyond bounds, are
// refused before anything walks the document: the decoder, the variable
// expansion that copies objects at run time.
func TestAliasesAreBounded(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"alias inside the node it names", head + "cells: [defaults]\nvars:\n  l: &l [*l]\n",
			"suites/s.yaml:6: alias *l is inside the node it names, so it never ends (an anchor must come after the whole node it names)"},
		{"object that contains itself", head + "cells: [defaults]\ncases:\n- id: a\n  title: t\n  steps:\n  - create: {name: x, object: &o {kind: Pod, spec: *o}}\n",
			"suites/s.yaml:9: alias *o is inside the node it names, so it never ends (an anchor must come after the whole node it names)"},
		{"billion laughs", head + "cells: [defaults]\nvars:\n" + billionLaughs("  "),
			"suites/s.yaml:11: aliases expand the document by more than 100000 nodes (write the values out, or use fixtures and variables)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			if got := loadSuite(t, tt.data); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
	// A few aliases are fine.
	ok := head + "cells: [defaults]\ncases:\n- id: a\n  title: t\n  steps: &s\n  - create: {fixture: pod, name: p1}\n- id: b\n  title: t\n  steps: *s\n"
	if got := loadSuite(t, ok); got != "" {
		t.Errorf("a suite with a few aliases does not load:\n%s", got)
	}
	_, err := loader.ProductOf("p.yaml", []byte(billionLaughs("")))
	if want := "p.yaml:6: aliases expand the document by more than 100000 nodes"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("product: got %v, want %s", err, want)
	}
}

// A null where a case or a step belongs is reported at its line, like any
// other case or step that lacks what it needs.
func TestNullItemsHaveTheirLine(t *testing.T) {
	got := loadSuite(t, head+"cells: [defaults]\ncases:\n- id: a\n  title: t\n  steps:\n  - ~\n- ~\n")
	want := `suites/s.yaml:9: a step needs exactly one action, found 0`
	if !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant a line %s", got, want)
	}
	for _, line := range strings.Split(got, "\n") {
		if !strings.HasPrefix(line, "suites/s.yaml:9: ") && !strings.HasPrefix(line, "suites/s.yaml:10: ") {
			t.Errorf("problem not at the null item: %s", line)
		}
	}
}

// A key written as an alias is the key it names, at the alias's line.
func TestAliasKeys(t *testing.T) {
	got := loadSuite(t, "apiVersion: draconform.dev/v1alpha1\nkind: Suite\n&k name: s\n*k : t\ncells: [defaults]\n")
	if want := `suites/s.yaml:4: duplicate key "name"`; !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant a line %s", got, want)
	}
}

// An empty document, after a trailing ---, holds nothing; a null one is
// a document without apiVersion.
func TestEmptyDocuments(t *testing.T) {
	valid := head + "cells: [defaults]\ncases:\n- id: a\n  title: t\n  steps: [{create: {fixture: pod, name: p1}}]\n"
	if got := loadSuite(t, valid+"---\n"); got != "" {
		t.Errorf("a trailing --- does not load:\n%s", got)
	}
	if got, want := loadSuite(t, valid+"---\n~\n"), `suites/s.yaml:10: apiVersion is ""`; !strings.HasPrefix(got, want) {
		t.Errorf("got:\n%s\nwant %s", got, want)
	}
}

// A file over MaxFileSize is refused at line 1 without being read whole.
func TestFilesAreBounded(t *testing.T) {
	big := head + "description: " + strings.Repeat("x", loader.MaxFileSize) + "\n"
	want := "suites/s.yaml:1: larger than 1048576 bytes (1 MiB), the most a spec file may have (split it into files of cases on one feature area)"
	if got := loadSuite(t, big); got != want {
		t.Errorf("got:\n%.300s\nwant:\n%s", got, want)
	}
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte(validProduct+"description: "+strings.Repeat("x", loader.MaxFileSize)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.LoadProduct(path); err == nil || err.Error() != path+":1: larger than 1048576 bytes (1 MiB), the most a spec file may have" {
		t.Errorf("product: %v", err)
	}
	if _, err := loader.LoadProfile(path); err == nil || err.Error() != path+":1: larger than 1048576 bytes (1 MiB), the most a spec file may have" {
		t.Errorf("profile: %v", err)
	}
	// A huge file is read only up to the bound (sparse: it takes no disk).
	huge := filepath.Join(t.TempDir(), "huge.yaml")
	if err := os.WriteFile(huge, []byte(validProduct), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 256<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := loader.LoadProduct(huge)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.HasPrefix(err.Error(), huge+":1: larger than") {
		t.Errorf("huge file: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("reading a 256 MiB file allocated %d bytes", alloc)
	}
}

// A product or profile file holds one document: none, or a second, is a
// problem at its line.
func TestOneDocument(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"empty", "", "p.yaml:1: not a Product file: no YAML document (a YAML document with apiVersion: draconform.dev/v1alpha1 and kind: Product)"},
		{"only ---", "---", "p.yaml:1: not a Product file: no YAML document (a YAML document with apiVersion: draconform.dev/v1alpha1 and kind: Product)"},
		{"comments", "# a product\n", "p.yaml:1: not a Product file: no YAML document (a YAML document with apiVersion: draconform.dev/v1alpha1 and kind: Product)"},
		{"not YAML", "vendor: [V\n", "p.yaml:1: not a Product file: not valid YAML: did not find expected ',' or ']' (a YAML document with apiVersion: draconform.dev/v1alpha1 and kind: Product)"},
		{"two", validProduct + "---\n" + validProduct, "p.yaml:10: a second YAML document (a Product file holds one document)"},
		{"second not YAML", validProduct + "---\n[\n", "p.yaml:10: not valid YAML: did not find expected node content"},
		{"trailing ---", validProduct + "---\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loader.ProductOf("p.yaml", []byte(tt.data))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// Large hostile files, each read whole and refused with its problems.
// How long they take is BenchmarkLargeHostileFiles' to show, as the ratio
// between sizes in one run (proportional to size: scopes of many
// variables and many references to objects a case does not have took
// minutes at 1 MiB when each case copied and searched lists), not a
// timed assertion here, which failed on a loaded machine.
var largeHostileFiles = map[string]func(b *strings.Builder, size int){
	"many variables, many cases": func(b *strings.Builder, size int) {
		b.WriteString(head + "cells: [defaults]\nvars: {")
		for i := 0; b.Len() < size*2/5; i++ {
			fmt.Fprintf(b, "v%d: x, ", i)
		}
		b.WriteString("}\ncases:\n")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(b, "- {id: c%d, title: t, steps: [{sleep: {for: 1s, why: \"${v%d} ${w%[2]d}\"}}]}\n", i, i)
		}
	},
	"many references to missing objects": func(b *strings.Builder, size int) {
		b.WriteString(head + "cells: [defaults]\ncases:\n- id: a\n  title: t\n  steps:\n")
		for i := 0; b.Len() < size/2; i++ {
			fmt.Fprintf(b, "  - create: {fixture: pod, name: p%d}\n", i)
		}
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(b, "  - expectScheduled: {pod: q%d}\n", i)
		}
	},
}

func TestLargeHostileFilesAreRefused(t *testing.T) {
	for name, gen := range largeHostileFiles {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			gen(&b, 512_000)
			if loadSuite(t, b.String()) == "" {
				t.Error("loaded without a problem")
			}
		})
	}
}

// BenchmarkLargeHostileFiles loads each file at three sizes side by side:
// ns/op should grow as the size does (2x, 4x), not as its square.
func BenchmarkLargeHostileFiles(b *testing.B) {
	for name, gen := range largeHostileFiles {
		for _, size := range []int{128_000, 256_000, 512_000} {
			var sb strings.Builder
			gen(&sb, size)
			b.Run(fmt.Sprintf("%s/%dKB", name, size/1000), func(b *testing.B) {
				for b.Loop() {
					loadSuite(b, sb.String())
				}
			})
		}
	}
}

// Only the first problems get a "did you mean": each costs an edit
// distance per candidate.
func TestHintsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(head + "cells: [defaults]\ncases:\n- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n")
	for i := 0; i < 150; i++ {
		b.WriteString("  - expectScheduled: {pod: p2}\n")
	}
	got := strings.Split(loadSuite(t, b.String()), "\n")
	hinted := 0
	for _, line := range got {
		if strings.HasSuffix(line, "(did you mean pod/p1?)") {
			hinted++
		}
	}
	if len(got) != 150 || hinted != 100 {
		t.Errorf("%d problems, %d with a hint; want 150, 100", len(got), hinted)
	}
}

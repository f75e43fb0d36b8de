package loader_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/suites/profiles"
	"github.com/draconform/draconform/tools/lang/loader"
)

// The fuzz targets feed the loader hostile files: every input must end in a
// clean load or in problems that each name a file and a line of it, never
// in a panic, and in bounded time and memory. Without -fuzz they run their
// seeds as unit tests; `make fuzz` fuzzes each for $(FUZZTIME).

// FuzzLoadSuite fuzzes a suite file.
func FuzzLoadSuite(f *testing.F) {
	for _, tt := range malformedSpecs {
		f.Add([]byte(tt.suite))
	}
	for _, name := range shipped(f, suites.FS) {
		f.Add(shippedFile(f, suites.FS, name))
	}
	f.Add([]byte(badClaims))
	addSeeds(f, hostile(suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n")))
	// The shipped cells and fixtures would make every run ten times
	// slower; the shipped suites then miss their fixtures, which is a
	// problem like any other.
	ffs := fstest.MapFS{"pod.yaml": {Data: []byte(podFixture)}}
	f.Fuzz(func(t *testing.T, data []byte) {
		sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "s.yaml": {Data: data}}
		files := map[string][]byte{"suites/cells.yaml": []byte(cells), "suites/s.yaml": data, "fixtures/pod.yaml": []byte(podFixture)}
		bounded(t, files, func() error {
			_, err := loader.Load(sfs, ffs, steps.Kinds())
			return err
		})
	})
}

// FuzzLoadFixture fuzzes a fixture file that a suite instantiates.
func FuzzLoadFixture(f *testing.F) {
	f.Add([]byte(podFixture))
	f.Add([]byte(badFixture))
	for _, name := range shipped(f, fixtures.FS) {
		f.Add(shippedFile(f, fixtures.FS, name))
	}
	addSeeds(f, hostile(podFixture))
	user := []byte(suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1, vars: {quantity: \"2\"}}\n  - expectScheduled: {pod: p1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "s.yaml": {Data: user}}
		ffs := fstest.MapFS{"f.yaml": {Data: data}}
		files := map[string][]byte{"suites/cells.yaml": []byte(cells), "suites/s.yaml": user, "fixtures/f.yaml": data}
		bounded(t, files, func() error {
			_, err := loader.Load(sfs, ffs, steps.Kinds())
			return err
		})
	})
}

// validProduct is the product file of tools/cli's certify test.
const validProduct = "apiVersion: draconform.dev/v1alpha1\nkind: Product\nvendor: V\nname: N\nversion: \"1\"\ndriver: gpu.example.com\nimage: img:1\ncontact: a@b.example\n"

// FuzzLoadProduct fuzzes a vendor's product file.
func FuzzLoadProduct(f *testing.F) {
	f.Add([]byte(validProduct))
	f.Add([]byte(strings.Replace(validProduct, "vendor:", "vendr:", 1)))
	f.Add([]byte(strings.Replace(validProduct, "kind: Product", "kind: DriverProfile", 1)))
	f.Add([]byte(validProduct + "---\n" + validProduct))
	addSeeds(f, hostile(validProduct))
	f.Fuzz(func(t *testing.T, data []byte) {
		bounded(t, map[string][]byte{"p.yaml": data}, func() error {
			_, err := loader.ProductOf("p.yaml", data)
			return err
		})
	})
}

// FuzzLoadProfile fuzzes a driver profile, as --driver-profile reads it.
func FuzzLoadProfile(f *testing.F) {
	shippedProfile := shippedFile(f, profiles.FS, profiles.TestDriver)
	f.Add(shippedProfile)
	f.Add([]byte(badProfile))
	addSeeds(f, hostile(string(shippedProfile)))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{"profile.yaml": {Data: data}}
		bounded(t, map[string][]byte{"profile.yaml": data}, func() error {
			_, err := loader.LoadProfileFS(fsys, "profile.yaml")
			return err
		})
	})
}

// maxFuzzSeed is the largest seed the fuzzer starts from: larger ones (the
// huge scalars) run as unit tests, but mutating them would take the
// fuzzer's whole budget.
const maxFuzzSeed = 8 << 10

func addSeeds(f *testing.F, seeds [][]byte) {
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	for _, data := range seeds {
		if !fuzzing || len(data) <= maxFuzzSeed {
			f.Add(data)
		}
	}
}

// bounded runs load and checks what every input must give: no panic (the
// fuzzer reports one), an end within time and memory bounds, and either no
// error or Problems that each name one of files and a line of it.
func bounded(t *testing.T, files map[string][]byte, load func() error) {
	t.Helper()
	size := 0
	for _, data := range files {
		size += len(data)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := load()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	// Generous for a loaded machine, and far below what an alias bomb or
	// a quadratic walk of a large file takes.
	if limit := 2*time.Second + time.Duration(size)*time.Second/(1<<20); took > limit {
		t.Errorf("took %v for %d bytes (bound %v)", took, size, limit)
	}
	if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(64<<20+200*size); alloc > limit {
		t.Errorf("allocated %d bytes for %d bytes of input (bound %d)", alloc, size, limit)
	}
	if err == nil {
		return
	}
	var probs loader.Problems
	if !errors.As(err, &probs) {
		t.Fatalf("error is not a list of problems at file:line: %v", err)
	}
	if len(probs) == 0 {
		t.Fatal("an error with no problem in it")
	}
	for _, p := range probs {
		data, ok := files[p.File]
		if !ok {
			t.Errorf("problem names no input file: %q", p)
			continue
		}
		if p.Line < 1 || p.Line > lines(data)+1 {
			t.Errorf("problem names line %d of a file of %d lines: %q", p.Line, lines(data), p)
		}
	}
}

// lines counts the line breaks YAML knows: CR, LF, CR LF, NEL, LS and PS
// (CR LF counts twice, which only makes the bound looser).
func lines(data []byte) int {
	n := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r"))
	for _, brk := range []string{"\u0085", "\u2028", "\u2029"} {
		n += bytes.Count(data, []byte(brk))
	}
	return n
}

// hostile returns seeds that attack a YAML reader, built on valid, a file
// the target loads.
func hostile(valid string) [][]byte {
	var seeds []string
	add := func(s ...string) { seeds = append(seeds, s...) }
	// Billion laughs: nine levels of nine aliases.
	bomb := "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i := 1; i < 10; i++ {
		bomb += fmt.Sprintf("a%d: &a%d [*a%d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	add(bomb, valid+"vars:\n  "+strings.ReplaceAll(bomb, "\n", "\n  "))
	// The same through types the decoder walks: cases of steps.
	add(suite("- &c {id: a, title: t, steps: &s [{create: {fixture: pod, name: p1}}, {expectScheduled: {pod: p1}}]}\n") +
		"- *c\n- *c\n- {id: b, title: t, steps: [*s, *s, *s, *s]}\n")
	// Aliases inside the node they name, and aliases as keys.
	add(valid+"vars: {loop: &l [*l]}\n", valid+"object: &o {a: *o}\n", "&k name: x\n*k : y\n", valid+"x: &x {a: *x}\n")
	add("a: *missing\n", valid+"b: *missing\n")
	// Merge keys.
	add(valid+"base: &b {name: x}\nmerged: {<<: *b, kind: Suite}\n", "<<: {apiVersion: draconform.dev/v1alpha1}\nkind: Suite\n")
	// Deep nesting, below and above yaml.v3's limit of 10000.
	for _, depth := range []int{5000, 10001} {
		add(valid+"x: "+strings.Repeat("[", depth)+strings.Repeat("]", depth)+"\n",
			valid+"x: "+strings.Repeat("{a: ", depth)+"1"+strings.Repeat("}", depth)+"\n")
	}
	add(valid + "x:\n" + nestedBlock(2000))
	// Huge scalars and keys, below and above MaxFileSize.
	add(valid+"description: "+strings.Repeat("x", loader.MaxFileSize-len(valid)-100)+"\n",
		valid+"description: "+strings.Repeat("x", 3<<20)+"\n",
		valid+strings.Repeat("k", 100_000)+": v\n",
		valid+"name: "+strings.Repeat("${a}", 10_000)+"\n")
	// Bytes that are no text: invalid UTF-8, NUL, a lone byte-order mark,
	// UTF-16.
	add(valid+"x: \xff\xfe\n", "apiVersion: draconform.dev/v1alpha1\nkind: \xc3\x28\n", valid+"x: a\x00b\n",
		"\x00", "\xef\xbb\xbf"+valid, "\xff\xfe"+utf16(valid), "\xfe\xff\x00a\x00:", valid+"x: \x1b[31m\n")
	// Tabs where YAML does not allow them.
	add("\t"+valid, strings.ReplaceAll(valid, "\n  ", "\n\t"), valid+"x:\n\t- a\n")
	// Several documents, null documents, empty ones, comments only.
	add(valid+"---\n"+valid, valid+"---\n~\n", valid+"...\n---\n", "~\n", "---\n---\n", "", "\n", "# nothing\n", "null\n", "[]\n", "x\n", valid+"---\n{a: [\n")
	// Keys of other kinds.
	add(valid+"1: a\n2.5: b\n0x10: c\n", valid+"? [a, b]\n: c\n", valid+"{a: 1}: b\n", valid+"null: x\n~: y\n", valid+"true: x\n")
	// Tags.
	add(valid+"x: !!binary aGVsbG8=\n", valid+"x: !custom {a: 1}\n", "!!map {apiVersion: !!int x}\n", valid+"x: !!timestamp 2001-12-14\n")
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}

func nestedBlock(depth int) string {
	var b strings.Builder
	for i := 1; i <= depth; i++ {
		b.WriteString(strings.Repeat(" ", i) + "- \n")
	}
	return b.String()
}

// utf16 encodes ASCII s as UTF-16LE.
func utf16(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		b.WriteByte(c)
		b.WriteByte(0)
	}
	return b.String()
}

// shipped names every *.yaml file of fsys, in lexical order.
func shipped(f *testing.F, fsys fs.FS) []string {
	f.Helper()
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil || len(names) == 0 {
		f.Fatalf("no shipped files: %v", err)
	}
	return names
}

func shippedFile(f *testing.F, fsys fs.FS, name string) []byte {
	f.Helper()
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

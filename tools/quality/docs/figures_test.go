package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/quality/bench"
)

const figuresRecord = `{"topics": ["A control plane's start", "Unused", "A run"], "measurements": [
  {"topic": "A control plane's start", "what": "etcd, kube-apiserver, scheduler and controller manager up, alone",
   "value": 4.5, "unit": "s", "text": "5.6 s the slowest", "machine": "idle", "date": "2026-12-04", "commit": "928b7a8",
   "command": "draconform up"},
  {"topic": "Unused", "what": "before the change", "value": 9, "unit": "s", "date": "2026-12-01", "commit": "0697bdc",
   "command": "draconform up", "superseded": "the before side"},
  {"topic": "A run", "what": "the kubelet | cases", "text": "1 min 23 s to 1 min 37 s",
   "date": "2026-12-01", "commit": "0697bdc", "command": "draconform run --suite a,b"}
]}`

func figuresBench() bench.Results {
	return bench.Results{
		Warm: &bench.Warm{Date: "2026-12-04", Commit: "215aaf4", Runs: []bench.Run{
			{WallSeconds: 150.04, FirstCaseSeconds: 16, Golden: true, CaseMedian: 2.2, CaseP90: 6.3, BusyCPUSeconds: 280, PeakRSS: 4 << 30,
				CellStart: []bench.CellStart{{Cell: "a", Seconds: 12}, {Cell: "b", Seconds: 30.25}}, SchedulerPerPod: 0.4},
			{WallSeconds: 160, FirstCaseSeconds: 18, Golden: true, CaseMedian: 2.2, CaseP90: 6.3, BusyCPUSeconds: 290, PeakRSS: 3 << 30},
		}},
		Cold: &bench.Cold{Date: "2026-12-04", Commit: "a8261c9", Command: "make conformance", Seconds: 1226, Golden: true,
			Milestones: []bench.Milestone{{What: "built", Seconds: 600, CPUSeconds: 1200}, {What: "first result", Seconds: 1226, CPUSeconds: 44.44}}},
		SchedCost: &bench.SchedCost{Date: "2026-12-05", Commit: "a17d519", Cell: "capacity-on", Batch: 5, Devices: 64,
			With:    bench.Side{Pods: 40, Delta: bench.SchedCounts{Scheduled: bench.Histo{Sum: 7.92, Count: 40}}},
			Without: bench.Side{Pods: 40, Delta: bench.SchedCounts{Scheduled: bench.Histo{Sum: 8.12, Count: 40}}}},
	}
}

// The table shows every measurement of the record under its topic, in the
// record's order, with bench.json's figures first in theirs, one line a
// record: the rest of it is docs/bench.md's.
func TestFiguresTableRendersTheRecord(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "measurements.json")
	if err := os.WriteFile(path, []byte(figuresRecord), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := LoadMeasurements(path)
	if err != nil {
		t.Fatal(err)
	}
	got := FiguresTable(*ms, figuresBench())
	want := "### A control plane's start\n\n" +
		"| what | figure | measured |\n|---|---|---|\n" +
		"| etcd, kube-apiserver, scheduler and controller manager up, alone | **4.5 s**, 5.6 s the slowest | 2026-12-04 `928b7a8` `draconform up` (idle) |\n" +
		"\n### A run\n\n" +
		"| what | figure | measured |\n|---|---|---|\n" +
		"| [the whole matrix, both implementations, binaries built](" + benchWarmLink + "): wall time | **155 s**, median of 2 runs; first case ended at 17 s, 285 CPU-s (both cores), 4096 MiB peak in the highest run; outcomes equal to the golden table | 2026-12-04 `215aaf4` `make bench` |\n" +
		"| the kubelet \\| cases | 1 min 23 s to 1 min 37 s | 2026-12-01 `0697bdc` `draconform run --suite a,b` |\n" +
		"\n### A cold build\n\n" +
		"| what | figure | measured |\n|---|---|---|\n" +
		"| [a newcomer's first `make conformance`](" + benchColdLink + "): clean clone, empty Go and binary caches, to the first result | **20.4 min**, 20:26, 1244.4 CPU-s (both cores); golden outcomes matched | 2026-12-04 `a8261c9` `make bench-cold` |\n" +
		"\n### The scheduler\n\n" +
		"| what | figure | measured |\n|---|---|---|\n" +
		"| [a scheduling attempt that binds a pod](" + benchSchedLink + "), its class with `extendedResourceCapacityRequests` | **198 ms**, mean of 40 pods; 203 ms without the field (40 pods); cell capacity-on, 64 shareable devices, batches of 5, the sides alternating | 2026-12-05 `a17d519` `make bench-scheduler-cost` |\n" +
		"\n1 superseded measurements (the before side of a change, a thing measured again) are in [measurements.json](measurements.json), each saying why.\n"
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

// A figure without its date, commit or command is refused, naming the
// entry: it could not be told from a stale one.
func TestLoadMeasurementsRefusesAFigureWithoutItsProvenance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "measurements.json")
	bad := `{"topics": ["A build"], "measurements": [{"topic": "A run", "what": "x", "value": 1, "date": "4 Dec", "commit": "HEAD", "command": ""}]}`
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadMeasurements(path)
	for _, want := range []string{`measurement 1 ("x")`, "command are required", `date "4 Dec"`, `commit "HEAD"`, "a value without a unit", `topic "A run" is not one of topics`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

// A line that goes on from the one before ("… with 6 cells") cannot
// follow a line the page leaves out, or another topic's: it would read as
// going on from the wrong line.
func TestLoadMeasurementsRefusesAContinuationOfAHiddenLine(t *testing.T) {
	m := func(topic, what, superseded string) string {
		return `{"topic": "` + topic + `", "what": "` + what + `", "value": 1, "unit": "s", "date": "2026-12-01", "commit": "0697bdc", "command": "c", "superseded": "` + superseded + `"}`
	}
	for name, tc := range map[string]struct {
		rows []string
		bad  bool
	}{
		"after a shown line":          {[]string{m("A", "x", ""), m("A", "… y", "")}, false},
		"after a superseded line":     {[]string{m("A", "x", "old"), m("A", "… y", "")}, true},
		"superseded after superseded": {[]string{m("A", "x", "old"), m("A", "… y", "old")}, false},
		"after another topic's line":  {[]string{m("B", "x", ""), m("A", "… y", "")}, true},
		"first of the record":         {[]string{m("A", "… y", "")}, true},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "measurements.json")
			record := `{"topics": ["A", "B"], "measurements": [` + strings.Join(tc.rows, ",") + `]}`
			if err := os.WriteFile(path, []byte(record), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadMeasurements(path)
			if got := err != nil && strings.Contains(err.Error(), "goes on from a line the page does not show"); got != tc.bad {
				t.Errorf("refused: %v, want %v (%v)", got, tc.bad, err)
			}
		})
	}
}

// What docs --check compares: the page as AddFigures makes it against the
// page on disk. A hand edit of the table, or a record changed without
// regenerating, makes them differ.
func TestAddFiguresDisagreesWithAHandEditedPage(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "figures.md")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "measurements.json"), figuresRecord)
	write(page, "# Figures\n\n"+figuresBegin+"old\n"+figuresEnd+"after\n")
	generate := func() string {
		t.Helper()
		paths := map[string][]byte{}
		if err := AddFigures(paths, dir); err != nil {
			t.Fatal(err)
		}
		return string(paths[page])
	}
	gen := generate()
	if !strings.Contains(gen, "| **4.5 s**, 5.6 s the slowest | 2026-12-04 `928b7a8` `draconform up` (idle) |") || !strings.HasSuffix(gen, figuresEnd+"after\n") {
		t.Fatalf("generated page:\n%s", gen)
	}
	write(page, gen)
	if generate() != gen {
		t.Fatal("the page just written disagrees with its record")
	}
	write(page, strings.Replace(gen, "**4.5 s**", "**3.9 s**", 1))
	if generate() != gen {
		t.Error("a hand-edited figure survived regeneration")
	}
	if onDisk, _ := os.ReadFile(page); string(onDisk) == generate() {
		t.Error("a hand-edited page agrees with its record")
	}
	write(page, gen)
	write(filepath.Join(dir, "measurements.json"), strings.Replace(figuresRecord, `"value": 4.5`, `"value": 4.7`, 1))
	if generate() == gen {
		t.Error("a changed record leaves the page as it was")
	}
	write(page, "# Figures without markers\n")
	if err := AddFigures(map[string][]byte{}, dir); err == nil || !strings.Contains(err.Error(), "markers") {
		t.Errorf("page without markers: %v", err)
	}
}

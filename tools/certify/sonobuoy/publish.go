package sonobuoy

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/internal/fsutil"
	"github.com/draconform/draconform/tools/report"
)

// DefaultResultsDir is where Sonobuoy mounts a plugin's results.
const DefaultResultsDir = "/tmp/sonobuoy/results"

// ResultsDir is the results directory of this plugin container.
func ResultsDir() string {
	if d := os.Getenv("SONOBUOY_RESULTS_DIR"); d != "" {
		return d
	}
	return DefaultResultsDir
}

// JUnitFile is the name of the JUnit report Sonobuoy counts: the
// bundle's, which a run's report is published as too.
const JUnitFile = bundle.JUnitFile

// BundleDir is the folder of the results that holds a certify run's
// bundle: plugins/draconform/results/global/bundle in what sonobuoy
// retrieve fetches.
const BundleDir = "bundle"

// Published are the files of a run a plugin hands to Sonobuoy: the JUnit
// report first (under the name Sonobuoy's JUnit processing counts), then
// what a reader of the results wants beside it.
var Published = map[string]string{
	report.JUnitFile:    JUnitFile,
	report.MatrixFile:   report.MatrixFile,
	report.HTMLFile:     report.HTMLFile,
	report.OutcomesFile: report.OutcomesFile,
	report.VerdictsFile: report.VerdictsFile,
	report.FactsFile:    report.FactsFile,
}

// Publish copies a run's reports from runDir into resultsDir and then
// writes the done file naming resultsDir, last, since the worker sends
// what the done file names as soon as it appears.
func Publish(runDir, resultsDir string) error { return publish(runDir, "", resultsDir) }

// PublishBundle is Publish of a certify run with the bundle in bundleDir,
// which goes whole into BundleDir of the results. Its JUnit report is the
// one Sonobuoy counts: the run's own copy is left out, since Sonobuoy
// counts every file of that name in the results, and would count each
// case twice.
func PublishBundle(runDir, bundleDir, resultsDir string) error {
	return publish(runDir, bundleDir, resultsDir)
}

func publish(runDir, bundleDir, resultsDir string) error {
	if err := fsutil.OutputDir(resultsDir); err != nil {
		return fmt.Errorf("sonobuoy results: %w", err)
	}
	if _, err := os.Stat(filepath.Join(runDir, report.JUnitFile)); err != nil {
		return fmt.Errorf("sonobuoy results: the run wrote no JUnit report: %w", err)
	}
	for from, to := range Published {
		if bundleDir != "" && to == JUnitFile {
			continue
		}
		if err := fsutil.CopyNew(filepath.Join(runDir, from), filepath.Join(resultsDir, to), 0o644); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("sonobuoy results: %s: %w", from, err)
		}
	}
	if bundleDir != "" {
		if err := copyBundle(bundleDir, filepath.Join(resultsDir, BundleDir)); err != nil {
			return fmt.Errorf("sonobuoy results: the bundle: %w", err)
		}
	}
	done := filepath.Join(resultsDir, "done")
	tmp := done + ".tmp"
	if err := fsutil.WriteNew(tmp, []byte(resultsDir), 0o644); err != nil {
		return fmt.Errorf("sonobuoy results: %w", err)
	}
	// A rename, so the worker never reads a half-written path.
	return os.Rename(tmp, done)
}

// copyBundle copies the bundle's files, which are regular files all, into
// to; a bundle without its JUnit report would leave Sonobuoy nothing to
// count.
func copyBundle(from, to string) error {
	if _, err := os.Stat(filepath.Join(from, JUnitFile)); err != nil {
		return fmt.Errorf("it has no JUnit report: %w", err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := fsutil.OutputDir(to); err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file: a bundle holds regular files only", e.Name())
		}
		if err := fsutil.CopyNew(filepath.Join(from, e.Name()), filepath.Join(to, e.Name()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

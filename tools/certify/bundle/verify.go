package bundle

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/report"
)

// Judge recomputes a bundle's verdict of claim from its outcomes and its
// cluster facts (the contents of cluster-facts.json), as the draconform
// that verifies it would have reached it, and lists the claim's cases the
// outcomes lack.
type Judge func(claim string, outcomes []report.Outcome, facts []byte) (v report.Verdict, missing []string, err error)

// Verify checks a bundle the way a reviewer would: every file is there and
// matches SHA256SUMS, it was made with the specs whose digest is
// suiteDigest, the JUnit report agrees with each outcome, it certifies one
// claim, every case of that claim has an outcome (a run that ended early
// proves nothing), its verdict follows from the outcomes, and PRODUCT.yaml
// is complete. It returns every problem found, joined.
func Verify(dir, suiteDigest string, judge Judge) error {
	return VerifyMerged(dir, suiteDigest, judge, nil)
}

// VerifyMerged is Verify of a bundle that may be merged from shares
// (MergedFile): check holds the merge's refusals of shares that are not
// one plan's, and each outcome must be one share's, as it reported it.
func VerifyMerged(dir, suiteDigest string, judge Judge, check CheckShares) error {
	var probs []error
	add := func(format string, args ...any) { probs = append(probs, fmt.Errorf(format, args...)) }
	if err := checkSums(dir, Files, []string{MergedFile}); err != nil {
		probs = append(probs, err)
	}
	var version struct {
		SuiteDigest string `json:"suiteDigest"`
	}
	if err := readJSON(dir, VersionFile, &version); err != nil {
		probs = append(probs, err)
	} else if version.SuiteDigest != suiteDigest {
		add("%s: made with other suites and fixtures (sha256:%s, this draconform has sha256:%s): verify it with the draconform it names", VersionFile, version.SuiteDigest, suiteDigest)
	}
	var outcomes []report.Outcome
	var verdicts []report.Verdict
	errO := readJSON(dir, OutcomesFile, &outcomes)
	errV := readJSON(dir, VerdictsFile, &verdicts)
	facts, errF := readFile(dir, FactsFile)
	for _, err := range []error{errO, errV, errF} {
		if err != nil {
			probs = append(probs, err)
		}
	}
	if errO == nil {
		probs = append(probs, checkJUnit(dir, outcomes)...)
	}
	if m, found, err := ReadMerged(dir); err != nil {
		probs = append(probs, err)
	} else if found && errO == nil {
		probs = append(probs, verifyMerged(m, outcomes, suiteDigest, check)...)
	}
	switch {
	case errV == nil && len(verdicts) != 1:
		add("%s holds %d verdicts: a bundle certifies one claim", VerdictsFile, len(verdicts))
	case errO == nil && errV == nil && errF == nil:
		want, missing, err := judge(verdicts[0].Claim, outcomes, facts)
		switch {
		case err != nil:
			add("recomputing the verdict: %v", err)
		case len(missing) > 0:
			add("the run did not finish: %d cases of %s have no outcome (first %s), so the bundle shows nothing of them", len(missing), verdicts[0].Claim, missing[0])
		case !reflect.DeepEqual(normal([]report.Verdict{want}), normal(verdicts)):
			add("%s does not follow from %s: %s", VerdictsFile, OutcomesFile, verdictDiff([]report.Verdict{want}, verdicts))
		}
	}
	probs = append(probs, checkRecords(dir)...)
	return errors.Join(probs...)
}

// checkRecords checks what a bundle says of its run besides the outcomes:
// the product, the README's command and unconfined note, and the log.
func checkRecords(dir string) []error {
	var probs []error
	add := func(format string, args ...any) { probs = append(probs, fmt.Errorf(format, args...)) }
	if product, err := readFile(dir, ProductFile); err != nil {
		probs = append(probs, err)
	} else if _, err := loader.ParseProduct(ProductFile, product); err != nil {
		add("%s: %v", ProductFile, err)
	}
	readme, errR := readFile(dir, ReadmeFile)
	if errR == nil && !strings.Contains(string(readme), "draconform certify") {
		add("%s does not give the command that made the bundle", ReadmeFile)
	}
	if acc, err := ReadAccess(dir); err != nil {
		probs = append(probs, err)
	} else if acc.Unconfined && errR == nil && !strings.Contains(string(readme), unconfinedNote) {
		add("%s records an unconfined run, which %s does not say", AccessFile, ReadmeFile)
	}
	if log, err := readFile(dir, LogFile); err == nil && !strings.Contains(string(log), "verdicts:") {
		add("%s is not the log of a whole run: it has no verdicts", LogFile)
	}
	return probs
}

// checkSums compares SHA256SUMS with the files, required each and
// optional where listed, and refuses files it does not list, files it
// lists that are gone, and other names (a path out of the folder, a
// subfolder, a file of another kind of bundle): those are never opened.
func checkSums(dir string, required, optional []string) error {
	data, err := readFile(dir, SumsFile)
	if err != nil {
		return err
	}
	var probs []error
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			probs = append(probs, fmt.Errorf("%s: malformed line %q", SumsFile, line))
			continue
		}
		if !slices.Contains(required, name) && !slices.Contains(optional, name) {
			probs = append(probs, fmt.Errorf("%s lists %q, which is not a file of a bundle: refused unread", SumsFile, name))
			continue
		}
		if listed[name] {
			probs = append(probs, fmt.Errorf("%s lists %s twice", SumsFile, name))
			continue
		}
		listed[name] = true
		content, err := readFile(dir, name)
		if errors.Is(err, fs.ErrNotExist) {
			probs = append(probs, fmt.Errorf("%s is missing: %w", name, err))
			continue
		}
		if err != nil {
			probs = append(probs, err)
			continue
		}
		if got := sha(content); got != sum {
			probs = append(probs, fmt.Errorf("%s was changed after the bundle was made: its sha256 is %s, %s says %s", name, got, SumsFile, sum))
		}
	}
	for _, name := range required {
		if !listed[name] {
			probs = append(probs, fmt.Errorf("%s does not list %s", SumsFile, name))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		probs = append(probs, fmt.Errorf("reading the bundle: %w", err))
	}
	for _, e := range entries {
		if !listed[e.Name()] && e.Name() != SumsFile && e.Name() != SigFile {
			probs = append(probs, fmt.Errorf("%s is not part of a bundle (not in %s)", e.Name(), SumsFile))
		}
	}
	return errors.Join(probs...)
}

// checkJUnit finds each outcome's test case in the JUnit report and
// compares their states.
func checkJUnit(dir string, outcomes []report.Outcome) []error {
	data, err := readFile(dir, JUnitFile)
	if err != nil {
		return []error{err}
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal(data, &suites); err != nil {
		return []error{fmt.Errorf("%s: %w", JUnitFile, err)}
	}
	var cases []reporters.JUnitTestCase
	for _, s := range suites.TestSuites {
		cases = append(cases, s.TestCases...)
	}
	var probs []error
	for _, o := range outcomes {
		i := slices.IndexFunc(cases, func(c reporters.JUnitTestCase) bool { return junitCaseOf(c, o) })
		if i < 0 {
			probs = append(probs, fmt.Errorf("%s has no test case for %s", JUnitFile, o.Name()))
			continue
		}
		if got := junitState(cases[i]); got != o.State {
			probs = append(probs, fmt.Errorf("%s is %s in %s but %s in %s", o.Name(), o.State, OutcomesFile, got, JUnitFile))
		}
	}
	return probs
}

// junitCaseOf says whether a JUnit test case records the outcome: by its
// classname (implementation.suite) and name (case@cell), or, in a bundle
// made before the JUnit report was written from the outcomes, by ginkgo's
// spec text, which held the outcome's name between spaces.
func junitCaseOf(c reporters.JUnitTestCase, o report.Outcome) bool {
	if c.Classname == o.JUnitClass() && c.Name == o.JUnitName() {
		return true
	}
	return strings.Contains(c.Name, " "+o.Name()+" ")
}

func junitState(c reporters.JUnitTestCase) report.State {
	switch {
	case c.Failure != nil || c.Error != nil:
		return report.Failed
	case c.Skipped != nil:
		return report.Skipped
	}
	return report.Passed
}

// normal makes nil and empty lists compare equal, as JSON loses the
// difference.
func normal(vs []report.Verdict) []report.Verdict {
	out := make([]report.Verdict, 0, len(vs))
	for _, v := range vs {
		if len(v.Blocking) == 0 {
			v.Blocking = nil
		}
		if len(v.Informing) == 0 {
			v.Informing = nil
		}
		out = append(out, v)
	}
	return out
}

func verdictDiff(want, got []report.Verdict) string {
	key := verdictName
	have := map[string]report.Verdict{}
	for _, v := range got {
		have[key(v)] = v
	}
	var out []string
	for _, w := range want {
		g, ok := have[key(w)]
		switch {
		case !ok:
			out = append(out, key(w)+" is missing")
		case g.State != w.State:
			out = append(out, fmt.Sprintf("%s says %s, the outcomes give %s", key(w), g.State, w.State))
		case !reflect.DeepEqual(normal([]report.Verdict{g}), normal([]report.Verdict{w})):
			out = append(out, key(w)+" differs in its counts or cases")
		}
		delete(have, key(w))
	}
	for k := range have {
		out = append(out, k+" is not a claim of these outcomes")
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

func readJSON(dir, name string, v any) error {
	data, err := readFile(dir, name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Package bundle writes and checks certification bundles: what a vendor
// publishes as proof that an implementation conforms, in the shape of a
// cncf/k8s-conformance submission (PRODUCT.yaml, README.md, e2e.log,
// junit_01.xml) with draconform's outcomes, verdicts and cluster facts, and
// SHA256SUMS over all of them.
package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/internal/fsutil"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// The files of a bundle.
const (
	ProductFile  = "PRODUCT.yaml"
	ReadmeFile   = "README.md"
	LogFile      = "e2e.log"
	JUnitFile    = "junit_01.xml"
	OutcomesFile = report.OutcomesFile
	VerdictsFile = report.VerdictsFile
	FactsFile    = report.FactsFile
	VersionFile  = "version.json"
	SumsFile     = "SHA256SUMS"
)

// Files are the files SHA256SUMS covers, in the order it lists them.
var Files = []string{ProductFile, ReadmeFile, LogFile, JUnitFile, OutcomesFile, VerdictsFile, FactsFile, VersionFile, AccessFile}

// Inputs are what a certify run produced.
type Inputs struct {
	// RunDir holds the run's junit.xml, outcomes.json and
	// cluster-facts.json.
	RunDir string
	// Log is the run's whole output.
	Log     string
	Product spec.Product
	// Command is the command line that made the bundle, for its README.
	Command string
	// Version is draconform's, as `draconform version` reports it; it must
	// carry suiteDigest.
	Version any
	// Verdict is the run's verdict of the one claim the bundle certifies:
	// the bundle speaks for it alone.
	Verdict report.Verdict
	// Merged, for the bundle of shares joined by `draconform merge
	// --bundle`, records each share (MergedFile); nil for one run.
	Merged *Merged
}

// Write makes dir a bundle from in. The run's kubeconfigs and logs of
// components are never copied: only the files above.
func Write(dir string, in Inputs) error {
	if err := fsutil.OutputDir(dir); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	// A signature of an earlier bundle in dir would sign other sums.
	if err := os.Remove(filepath.Join(dir, SigFile)); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("bundle: %w", err)
	}
	acc, err := ReadAccess(in.RunDir)
	if err != nil {
		return fmt.Errorf("bundle: the run's record of its access to the cluster: %w", err)
	}
	copies := map[string]string{
		JUnitFile: filepath.Join(in.RunDir, report.JUnitFile), OutcomesFile: filepath.Join(in.RunDir, report.OutcomesFile),
		FactsFile: filepath.Join(in.RunDir, report.FactsFile), LogFile: in.Log, AccessFile: filepath.Join(in.RunDir, AccessFile),
	}
	docs, err := describe(in.Product, in.Version)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	verdicts, err := json.MarshalIndent([]report.Verdict{in.Verdict}, "", "  ")
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	docs[ReadmeFile], docs[VerdictsFile] = []byte(readme(in, acc)), append(verdicts, '\n')
	if err := lay(dir, copies, docs); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	files := Files
	if in.Merged != nil {
		data, err := json.MarshalIndent(in.Merged, "", "  ")
		if err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		if err := fsutil.WriteNew(filepath.Join(dir, MergedFile), append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		files = append(slices.Clone(Files), MergedFile)
	}
	// A vendor publishes the bundle: a credential that reached a log must
	// stop it here, not on a web page.
	if err := refuseLeaks(dir); err != nil {
		return err
	}
	return writeSumsOf(dir, files)
}

// describe makes the documents every bundle and part holds: the product
// and the version of draconform that made it.
func describe(product spec.Product, version any) (map[string][]byte, error) {
	p, err := yaml.Marshal(productDoc(product))
	if err != nil {
		return nil, err
	}
	v, err := json.MarshalIndent(version, "", "  ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{ProductFile: p, VersionFile: append(v, '\n')}, nil
}

// lay copies the run's files into dir, by name in dir, and writes the
// documents made for it.
func lay(dir string, copies map[string]string, docs map[string][]byte) error {
	for name, from := range copies {
		if err := fsutil.CopyNew(from, filepath.Join(dir, name), 0o644); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	for name, data := range docs {
		if err := fsutil.WriteNew(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// productDoc is the Product as PRODUCT.yaml holds it, fields in order.
func productDoc(p spec.Product) *yaml.Node {
	doc := &yaml.Node{Kind: yaml.MappingNode}
	for _, kv := range [][2]string{
		{"apiVersion", spec.APIVersion}, {"kind", "Product"}, {"vendor", p.Vendor}, {"name", p.Name}, {"version", p.Version},
		{"website", p.Website}, {"description", p.Description}, {"driver", p.Driver}, {"image", p.Image},
		{"contact", p.Contact}, {"kubernetesVersion", p.KubernetesVersion},
	} {
		if kv[1] == "" {
			continue
		}
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[0]}, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[1]})
	}
	return doc
}

func readme(in Inputs, acc Access) string {
	var b strings.Builder
	p := in.Product
	fmt.Fprintf(&b, "# %s %s: KEP-6406 certification by draconform\n\n", p.Name, p.Version)
	fmt.Fprintf(&b, "Vendor: %s. DRA driver `%s`, image `%s`, on Kubernetes %s. Contact: %s.\n\n", p.Vendor, p.Driver, p.Image, p.KubernetesVersion, p.Contact)
	v := in.Verdict
	b.WriteString("## Verdict\n\nThis bundle certifies one claim; the run's verdicts of the others are in its log, not here.\n\n")
	b.WriteString("| claim | implementation | verdict | reason |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %s (%s) | %s | **%s** | %s |\n", v.Claim, v.Title, v.Target, v.State, strings.ReplaceAll(v.Reason, "|", "\\|"))
	for _, id := range v.Blocking {
		fmt.Fprintf(&b, "\n- blocking: %s", id)
	}
	if len(v.Blocking) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("\n" + accessSection(acc))
	b.WriteString(mergedSection(in.Merged))
	b.WriteString("\n## How it was made\n\n```sh\n" + in.Command + "\n```\n\n")
	b.WriteString("Run it again with the draconform that `version.json` names, on the same cluster, to reproduce it.\n")
	b.WriteString("Check the bundle as a reviewer would with `draconform verify-bundle DIR`: every file is present, the sums match,\n")
	b.WriteString("each outcome agrees with the JUnit report, and the verdicts follow from the outcomes.\n\n")
	b.WriteString("## Who made it\n\n")
	b.WriteString("SHA256SUMS shows only that no file changed after the sums were written, not who wrote them: anyone can edit\n")
	b.WriteString("an outcome, the JUnit report and the verdict together and write fresh sums. Unsigned, this bundle is\n")
	b.WriteString("self-attested: it is worth the word of whoever hands it to you. Signed (`certify --sign-key`), it carries\n")
	fmt.Fprintf(&b, "`%s`, an SSH signature of SHA256SUMS in namespace `%s`; check it against the vendor's published key with\n", SigFile, SigNamespace)
	b.WriteString("`draconform verify-bundle --allowed-signers FILE DIR`, or without draconform:\n\n")
	fmt.Fprintf(&b, "```sh\nssh-keygen -Y verify -f allowed_signers -I VENDOR -n %s -s %s < %s\n```\n\n", SigNamespace, SigFile, SumsFile)
	b.WriteString("## Files\n\n")
	for _, f := range []struct{ name, what string }{
		{ProductFile, "what is certified"}, {LogFile, "the run's whole output"}, {JUnitFile, "the JUnit report"},
		{OutcomesFile, "one outcome per case, cell and implementation"}, {VerdictsFile, "the verdict of the claim it certifies"},
		{FactsFile, "what each cell ran on: server version, nodes, DeviceClasses and ResourceSlices as read, the probe's findings"},
		{VersionFile, "draconform's version and the digest of its suites"},
		{AccessFile, "who started the cluster, and whether draconform's admission policy confined the run's writes there (`unconfined: true` where `--allow-unconfined` let it write unconfined)"}, {SumsFile, "sha256 of every other file"},
		{SigFile, "if signed: the SSH signature of " + SumsFile},
	} {
		fmt.Fprintf(&b, "- `%s`: %s\n", f.name, f.what)
	}
	return b.String()
}

// writeSums writes the sums of a bundle's files, MergedFile among them
// where the bundle has it.
func writeSums(dir string) error {
	files := Files
	if _, err := os.Lstat(filepath.Join(dir, MergedFile)); err == nil {
		files = append(slices.Clone(Files), MergedFile)
	}
	return writeSumsOf(dir, files)
}

func fileSum(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return sha(data), nil
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/draconform/draconform/tools/internal/fsutil"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/certify/secretscan"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
)

// A part bundle is what `certify --shard i/n` writes: one share of the
// plan, not a verdict. `draconform merge --bundle` joins all the shares'
// parts into one bundle, refusing a part changed after it was written.
const (
	// ShardFile is the share's record, as `run --shard` writes it: which
	// share of which plan, and what each of its processes reported.
	ShardFile = "shard.json"
	// PartFile names the claim the share is run for and its command.
	PartFile = "part.json"
)

// PartFiles are the files a part's SHA256SUMS covers.
var PartFiles = []string{ProductFile, LogFile, VersionFile, AccessFile, ShardFile, PartFile}

// PartInputs are what a certify share produced.
type PartInputs struct {
	// RunDir holds the share's shard.json and access.json; Log is its
	// whole output.
	RunDir, Log string
	Product     spec.Product
	Claim       string
	Command     string
	Version     any
}

// Part is a part bundle as read back: its sums checked.
type Part struct {
	Dir     string        `json:"-"`
	Claim   string        `json:"claim"`
	Command string        `json:"command"`
	Product *spec.Product `json:"-"`
	Access  Access        `json:"-"`
	// Sums is the sha256 of the part's SHA256SUMS, which a merged bundle
	// records so that a reviewer holding the parts can match them.
	Sums string `json:"-"`
}

// WritePart makes dir a part bundle of the share in in.RunDir.
func WritePart(dir string, in PartInputs) error {
	if err := fsutil.OutputDir(dir); err != nil {
		return fmt.Errorf("part bundle: %w", err)
	}
	docs, err := describe(in.Product, in.Version)
	if err != nil {
		return fmt.Errorf("part bundle: %w", err)
	}
	part, err := json.MarshalIndent(Part{Claim: in.Claim, Command: in.Command}, "", "  ")
	if err != nil {
		return fmt.Errorf("part bundle: %w", err)
	}
	docs[PartFile] = append(part, '\n')
	copies := map[string]string{ShardFile: filepath.Join(in.RunDir, ShardFile), AccessFile: filepath.Join(in.RunDir, AccessFile), LogFile: in.Log}
	if err := lay(dir, copies, docs); err != nil {
		return fmt.Errorf("part bundle: %w", err)
	}
	if err := refuseLeaks(dir); err != nil {
		return err
	}
	return writeSumsOf(dir, PartFiles)
}

// ReadPart checks a part bundle's sums and reads what a merge needs of
// it; a part changed after certify wrote it is refused.
func ReadPart(dir string) (Part, error) {
	if err := checkSums(dir, PartFiles, nil); err != nil {
		return Part{}, fmt.Errorf("%s is not a part bundle as certify --shard wrote it:\n%w", dir, err)
	}
	var p Part
	if err := readJSON(dir, PartFile, &p); err != nil {
		return p, err
	}
	data, err := readFile(dir, ProductFile)
	if err != nil {
		return p, err
	}
	if p.Product, err = loader.ParseProduct(ProductFile, data); err != nil {
		return p, fmt.Errorf("%s: %s: %w", dir, ProductFile, err)
	}
	if p.Access, err = ReadAccess(dir); err != nil {
		return p, fmt.Errorf("%s: %w", dir, err)
	}
	sums, err := readFile(dir, SumsFile)
	if err != nil {
		return p, err
	}
	p.Dir, p.Sums = dir, sha(sums)
	return p, nil
}

// JoinAccess is what the shares' records of their clusters say of the
// whole: unconfined if any share was, visited if any cluster was.
func JoinAccess(parts []Part) Access {
	a := Access{Cluster: ClusterStarted}
	var confined []string
	for _, p := range parts {
		if p.Access.Cluster == ClusterVisited {
			a.Cluster = ClusterVisited
		}
		a.Unconfined = a.Unconfined || p.Access.Unconfined
		if p.Access.Confined != "" && !slices.Contains(confined, p.Access.Confined) {
			confined = append(confined, p.Access.Confined)
		}
	}
	a.Confined = strings.Join(confined, ",")
	return a
}

// refuseLeaks stops a bundle that would publish what looks like a
// credential.
func refuseLeaks(dir string) error {
	leaks, err := secretscan.Scan(dir, time.Time{})
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if len(leaks) > 0 {
		lines := make([]string, len(leaks))
		for i, l := range leaks {
			lines[i] = "  " + l.String()
		}
		return fmt.Errorf("bundle: refusing to finish %s, which would publish what looks like a credential (remove it from the run's output, or report a bug if draconform wrote it):\n%s", dir, strings.Join(lines, "\n"))
	}
	return nil
}

func writeSumsOf(dir string, files []string) error {
	var b bytes.Buffer
	for _, name := range files {
		sum, err := fileSum(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, name)
	}
	return fsutil.WriteNew(filepath.Join(dir, SumsFile), b.Bytes(), 0o644)
}

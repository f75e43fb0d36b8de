// Package plan expands suites into the cases a run executes: every case in
// every gate cell it names, each with a stable id and ginkgo labels.
package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
	"gopkg.in/yaml.v3"
)

// Case is one case in one cell.
type Case struct {
	// ID is suite/case@cell: what --focus matches and reports show.
	ID     string
	Suite  *spec.Suite
	Case   *spec.Case
	Cell   *spec.Cell
	KEP    []string
	Labels []string
	// Serial cases restart components, which every other case on the
	// cluster would see, so ginkgo runs them alone.
	Serial bool
	// Alone cases need the cluster to themselves: Serial ones, and those
	// that watch it as a whole (the scheduler's attempts at a pod).
	Alone bool
	// Target is the implementation the case runs on (a provider: local,
	// prototype, kubeconfig); the runner sets it when a run has several.
	Target string
	// APIVersions are the group versions the case's steps name to read or
	// write through (resource.k8s.io/v1beta2, say): a server must serve
	// them for the case to mean anything, and beta versions of a group
	// are off by default.
	APIVersions []string
	// FakeNodes says the case creates Node objects with no kubelet behind
	// them: on a cluster the run did not start, the cluster's DaemonSets
	// follow them, so they need the operator's consent there.
	FakeNodes bool
	// Informs is set, to the register entry's reason, when the case rests
	// on a reading the KEP leaves open: it never blocks a claim.
	Informs string
}

// ForTarget returns a copy of c that runs on target, labelled with it.
func (c Case) ForTarget(target string) Case {
	c.Target = target
	c.Labels = append(append([]string(nil), c.Labels...), "provider:"+target)
	return c
}

// Key is the case's identity in the report.
func (c Case) Key() report.Key {
	return report.Key{Target: c.Target, Suite: c.Suite.Name, Case: c.Case.ID, Cell: c.Cell.Name,
		Contested: c.Case.Contested != "", Known: c.Case.KnownIssues != "", Informing: c.Informs != ""}
}

// Title is what reports and --focus see: the id and the target.
func (c Case) Title() string { return c.Key().Title() }

// Hash is a short digest of the id, used to derive unique object names.
func (c Case) Hash() string {
	sum := sha256.Sum256([]byte(c.Target + ":" + c.ID))
	return hex.EncodeToString(sum[:])[:6]
}

// Filter narrows a plan. Empty fields select everything.
type Filter struct {
	Cells  []string
	Suites []string
}

// Expand lists the cases of b in suite, case, then cell order.
func Expand(b *loader.Bundle, f Filter) []Case {
	var out []Case
	for _, s := range b.Suites {
		if len(f.Suites) > 0 && !slices.Contains(f.Suites, s.Name) {
			continue
		}
		for i := range s.Cases {
			c := &s.Cases[i]
			cells := c.Cells
			if len(cells) == 0 {
				cells = s.Cells
			}
			for _, name := range orderCells(b.CellOrder, cells) {
				if len(f.Cells) > 0 && !slices.Contains(f.Cells, name) {
					continue
				}
				pc := newCase(b.Kinds, s, c, b.Cells[name])
				pc.FakeNodes = slices.Contains(kindsCreated(b, c), "Node")
				pc.Informs = informs(b, c)
				if pc.Informs != "" {
					pc.Labels = append(pc.Labels, "informing")
				}
				out = append(out, pc)
			}
		}
	}
	return out
}

func orderCells(order, selected []string) []string {
	var out []string
	for _, name := range order {
		if slices.Contains(selected, name) {
			out = append(out, name)
		}
	}
	return out
}

func newCase(kinds spec.StepKinds, s *spec.Suite, c *spec.Case, cell *spec.Cell) Case {
	kep := append(slices.Clone(s.KEP), c.KEP...)
	slices.Sort(kep)
	kep = slices.Compact(kep)
	pc := Case{
		ID:          report.Key{Suite: s.Name, Case: c.ID, Cell: cell.Name}.ID(),
		Suite:       s,
		Case:        c,
		Cell:        cell,
		KEP:         kep,
		Serial:      c.Requires.Restart || kinds.Serial(c),
		Alone:       c.Requires.Restart || kinds.Alone(c),
		APIVersions: apiVersions(c),
	}
	pc.Labels = []string{"suite:" + s.Name, "cell:" + cell.Name}
	for _, k := range kep {
		pc.Labels = append(pc.Labels, "kep:"+Slug(k))
	}
	if c.Contested != "" {
		pc.Labels = append(pc.Labels, "contested")
	}
	if c.KnownIssues != "" {
		pc.Labels = append(pc.Labels, "known-issue")
	}
	if pc.Serial {
		pc.Labels = append(pc.Labels, "restart")
	}
	// Where no kubelet runs, --label-filter '!kubelet' leaves these out
	// instead of reporting them skipped.
	if c.Requires.Kubelet() {
		pc.Labels = append(pc.Labels, "kubelet")
	}
	return pc
}

// informs is why c only informs: the open register entry it rests on, or
// "" for a case that blocks its claims.
func informs(b *loader.Bundle, c *spec.Case) string {
	for _, e := range b.Register {
		if e.ID == c.Contested && e.Open() {
			return e.ID + " is open: " + strings.Join(strings.Fields(e.OpenBecause), " ")
		}
	}
	return ""
}

func apiVersions(c *spec.Case) []string {
	var out []string
	walk := func(steps []spec.Step) {
		for _, st := range steps {
			for _, w := range []*spec.Write{st.Create, st.Update, st.Apply} {
				if w != nil && w.APIVersion != "" {
					out = append(out, w.APIVersion)
				}
			}
			if st.Assert != nil && st.Assert.APIVersion != "" {
				out = append(out, st.Assert.APIVersion)
			}
		}
	}
	walk(c.Steps)
	if c.Gap != nil {
		walk(c.Gap.Closed)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// kindsCreated lists the kinds of the objects a case writes: its given
// objects and its create, apply and update steps, inline or from fixtures.
func kindsCreated(b *loader.Bundle, c *spec.Case) []string {
	var out []string
	for _, u := range objectUses(c) {
		obj := &u.Object
		if u.Fixture != "" {
			if f, ok := b.Fixtures[u.Fixture]; ok {
				obj = &f.Object
			}
		}
		if k := mappingValue(obj, "kind"); k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// mappingValue is the scalar under key in a YAML mapping, or "".
func mappingValue(n *yaml.Node, key string) string {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug turns a KEP section title into a label value ginkgo accepts
// ("Notes/Constraints/Caveats" → "notes-constraints-caveats").
func Slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// Cells lists the distinct cells of a plan in the order cells.yaml
// defines them.
func Cells(cases []Case) []*spec.Cell {
	var out []*spec.Cell
	seen := map[string]bool{}
	for _, c := range cases {
		if !seen[c.Cell.Name] {
			seen[c.Cell.Name] = true
			out = append(out, c.Cell)
		}
	}
	slices.SortStableFunc(out, func(a, b *spec.Cell) int {
		if a.Pos.File != b.Pos.File {
			return strings.Compare(a.Pos.File, b.Pos.File)
		}
		return a.Pos.Line - b.Pos.Line
	})
	return out
}

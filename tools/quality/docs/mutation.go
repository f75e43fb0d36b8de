package docs

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/build/mutants"
)

// MutationTable renders the results as docs/mutation.md's Markdown tables:
// the mutants, which the suite must reject, then the legal variants, which
// it must certify.
func MutationTable(rs []mutants.Result) string {
	var ms, vs []mutants.Result
	for _, r := range rs {
		if r.Legal != "" {
			vs = append(vs, r)
		} else {
			ms = append(ms, r)
		}
	}
	return mutantTable(ms) + "\n" + variantTable(vs)
}

// variantTable renders the legal variants: each must certify every claim
// the prototype earns in the same run; one that does not names the claims
// and their cases in its "certified" column.
func variantTable(rs []mutants.Result) string {
	var b strings.Builder
	b.WriteString("| legal variant | what it does otherwise | why the KEP allows it | certified |\n|---|---|---|---|\n")
	certified, total := 0, 0
	for _, r := range rs {
		state := "yes"
		if r.Defect() {
			var out []string
			for _, br := range r.Breaks {
				out = append(out, "`"+br.Claim+"` ("+strings.Join(br.Cases, ", ")+")")
			}
			state = "**no** (a defect of the suite): " + strings.Join(out, "; ")
		} else {
			certified++
		}
		total += r.Seconds
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Provider, FirstSentence(r.Mistake), r.Legal, state)
	}
	// What "not" means, and where the table comes from, the page says once
	// above both tables.
	fmt.Fprintf(&b, "\n%d legal variants: %d certified on every claim the prototype earns, %d not; the %d runs took %s in all.\n",
		len(rs), certified, len(rs)-certified, len(rs), (time.Duration(total) * time.Second).String())
	return b.String()
}

// mutantTable renders the mutants: each mistake's first sentence (the
// record keeps it whole), a column per claim a mutant breaks, marked ✗
// where it does (`certify --claim` refuses it there: the mutant is
// killed), and the blocking cases that caught it, or why none did. A
// column a claim rather than a list a row: the claims' names are written
// once.
func mutantTable(rs []mutants.Result) string {
	claims := brokenClaims(rs)
	var b strings.Builder
	b.WriteString("| mutant | its mistake |")
	for _, c := range claims {
		fmt.Fprintf(&b, " `%s` |", c)
	}
	b.WriteString(" blocking cases that caught it |\n|---|---|" + strings.Repeat("---|", len(claims)+1) + "\n")
	killed, equivalent, total := 0, 0, 0
	for _, r := range rs {
		caught := caughtList(r)
		switch {
		case r.Killed():
			killed++
		case r.Equivalent != "":
			equivalent++
		default:
			caught = "**not killed**: " + caught
		}
		total += r.Seconds
		broken := map[string]bool{}
		for _, br := range r.Breaks {
			broken[br.Claim] = true
		}
		fmt.Fprintf(&b, "| `%s` | %s |", r.Provider, FirstSentence(r.Mistake))
		for _, c := range claims {
			if broken[c] {
				b.WriteString(" ✗ |")
			} else {
				b.WriteString(" |")
			}
		}
		fmt.Fprintf(&b, " %s |\n", caught)
	}
	fmt.Fprintf(&b, "\n%d mutants: %d killed, %d equivalent, %d surviving; the %d runs took %s in all.\n",
		len(rs), killed, equivalent, len(rs)-killed-equivalent, len(rs), (time.Duration(total) * time.Second).String())
	return b.String()
}

// brokenClaims are the claims some mutant breaks, in the order the
// results first name them (the catalogue's first mutants break the
// claims in the order claims.yaml gives them).
func brokenClaims(rs []mutants.Result) []string {
	var out []string
	for _, r := range rs {
		for _, br := range r.Breaks {
			if !slices.Contains(out, br.Claim) {
				out = append(out, br.Claim)
			}
		}
	}
	return out
}

func claimList(r mutants.Result) string {
	var out []string
	for _, br := range r.Breaks {
		out = append(out, br.Claim)
	}
	return strings.Join(out, ", ")
}

// caughtList counts the blocking cases that broke a claim, then the cases
// that only informed (those alone would have let the mutant certify);
// docs/mutation.json names them all.
func caughtList(r mutants.Result) string {
	var blocking []string
	seen := map[string]bool{}
	for _, br := range r.Breaks {
		for _, id := range br.Cases {
			if !seen[id] {
				seen[id] = true
				blocking = append(blocking, id)
			}
		}
	}
	informing := r.InformingOnly()
	if len(blocking) == 0 {
		switch {
		case r.Equivalent != "":
			return "none can, equivalent: " + r.Equivalent
		case len(informing) > 0:
			return fmt.Sprintf("none: only informing cases failed (%s), so it would certify; a blocking case is missing", strings.Join(informing, ", "))
		}
		return "none: a case is missing"
	}
	text := fmt.Sprint(len(blocking))
	if len(informing) > 0 {
		text += fmt.Sprintf(" (+%d informing)", len(informing))
	}
	return text
}

// Suites is what the mutation table is checked against: the suites as
// they are now.
type Suites struct {
	// Digest covers every file of the suites and fixtures.
	Digest string
	// Cases is each planned case's digest (plan.Digest), by id.
	Cases map[string]string
	// Blocking is, for each claim, the ids of the cases that block it.
	Blocking map[string]map[string]bool
}

// StaleMutations lists what makes results say nothing of the suites now: a
// mutant of the catalogue with no result, a break none of whose cases
// still holds (each changed, went or stopped blocking its claim), and a
// mutant no claim broke judged on other suites (any new case might catch
// it). A break with one case that still runs what it ran and blocks its
// claim stands on other suites too: that case still fails on the mutant
// and passes on the prototype. The mutation table is a claim about the
// suites as they are, so lint refuses it stale.
func StaleMutations(rs []mutants.Result, catalogue []string, now Suites) []Stale {
	var out []Stale
	have := map[string]bool{}
	for _, r := range rs {
		have[r.Provider] = true
		if r.Legal != "" {
			out = append(out, staleVariant(r, now)...)
			continue
		}
		if r.SuiteDigest == now.Digest {
			continue
		}
		if !r.Killed() {
			out = append(out, Stale{r.Provider, fmt.Sprintf("broke no claim on other suites (%s; these are %s): any case added since may catch it", orUnrecorded(r.SuiteDigest), now.Digest)})
			continue
		}
		for _, b := range r.Breaks {
			var why []string
			for _, id := range b.Cases {
				w := brokenBy(b, id, now)
				if w == "" {
					why = nil
					break
				}
				why = append(why, id+" "+w)
			}
			switch {
			case len(b.Cases) == 0:
				out = append(out, Stale{r.Provider, fmt.Sprintf("no case of its break of %s holds: each changed, went or stopped blocking it since the mutant was judged", b.Claim)})
			case len(why) > 0:
				out = append(out, Stale{r.Provider, fmt.Sprintf("no case of its break of %s holds: %s", b.Claim, strings.Join(why, "; "))})
			}
		}
	}
	for _, name := range catalogue {
		if !have[name] {
			out = append(out, Stale{name, "has no result"})
		}
	}
	return out
}

// staleVariant says why a legal variant's result does not hold for the
// suites now: it did not certify (a defect of the suite, which lint
// refuses until the case is made as strong as the KEP), or a case that
// blocks a claim now did not run then what it runs now.
func staleVariant(r mutants.Result, now Suites) []Stale {
	if r.Defect() {
		return []Stale{{r.Provider, "is a legal variant the suite does not certify (" + claimList(r) + "): a case asks for more than the KEP"}}
	}
	if r.SuiteDigest == now.Digest {
		return nil
	}
	var changed []string
	seen := map[string]bool{}
	for _, cases := range now.Blocking {
		for id := range cases {
			if !seen[id] && r.Held[id] != now.Cases[id] {
				changed = append(changed, id)
			}
			seen[id] = true
		}
	}
	if len(changed) == 0 {
		return nil
	}
	slices.Sort(changed)
	return []Stale{{r.Provider, fmt.Sprintf("was certified on other suites, and %d blocking cases ran otherwise or did not pass on it then (first %s)", len(changed), changed[0])}}
}

// DropChanged removes from results judged on other suites the cases that
// no longer show what they showed (changed, gone, or no longer blocking
// the claim they broke), so that the table names only cases that still
// catch the mutant. It says whether it removed any. A break left without
// cases is kept empty, for StaleMutations to report.
func DropChanged(rs []mutants.Result, now Suites) bool {
	dropped := false
	for i := range rs {
		r := &rs[i]
		if r.SuiteDigest == now.Digest || !r.Killed() {
			continue
		}
		gone := map[string]bool{}
		for j := range r.Breaks {
			b := &r.Breaks[j]
			keep := []string{}
			for _, id := range b.Cases {
				if brokenBy(*b, id, now) == "" {
					keep = append(keep, id)
					continue
				}
				if d, ok := b.Digests[id]; !ok || d != now.Cases[id] {
					gone[id] = true // it runs something else now
				}
				delete(b.Digests, id)
				dropped = true
			}
			b.Cases = keep
		}
		// Informing catches kill nothing and have no recorded digest:
		// the table only counts them, so they stay while still planned.
		caught := []string{}
		for _, id := range r.Caught {
			if gone[id] || now.Cases[id] == "" {
				dropped = true
				continue
			}
			caught = append(caught, id)
		}
		r.Caught = caught
	}
	return dropped
}

// Stale is one reason a mutant's result says nothing of the suites now.
type Stale struct {
	Mutant string
	Why    string
}

func (s Stale) String() string { return s.Mutant + ": " + s.Why }

// StaleNames are the mutants of stale, once each, in order: what to rerun.
func StaleNames(stale []Stale) []string {
	var out []string
	for _, s := range stale {
		if !slices.Contains(out, s.Mutant) {
			out = append(out, s.Mutant)
		}
	}
	return out
}

// brokenBy says why case id no longer shows break b, or "".
func brokenBy(b mutants.Break, id string, now Suites) string {
	was, recorded := b.Digests[id]
	d, planned := now.Cases[id]
	switch {
	case !recorded:
		return "was recorded without what it ran"
	case !planned:
		return "the suites no longer plan"
	case d != was:
		return "changed since"
	case !b.Contradicted && !now.Blocking[b.Claim][id]:
		return "no longer blocks it"
	}
	return ""
}

func orUnrecorded(digest string) string {
	if digest == "" {
		return "unrecorded"
	}
	return digest
}

// docs/mutation.md's generated section sits between these markers.
const (
	mutationBegin = "<!-- mutation table: generated by draconform mutation from docs/mutation.json; do not edit -->\n"
	mutationEnd   = "<!-- end of mutation table -->\n"
)

// SpliceMutationTable puts table between the page's markers.
func SpliceMutationTable(readme, table string) (string, error) {
	return splice(readme, mutationBegin, mutationEnd, table)
}

// RecordDigests fills in what each case of a break ran, for results judged
// on the suites as they are now and recorded before breaks kept it: the
// cases ran then what they run now. It says whether it filled any.
func RecordDigests(rs []mutants.Result, now Suites) bool {
	filled := false
	for i := range rs {
		if rs[i].SuiteDigest != now.Digest {
			continue
		}
		for j := range rs[i].Breaks {
			b := &rs[i].Breaks[j]
			for _, id := range b.Cases {
				d, ok := now.Cases[id]
				if _, has := b.Digests[id]; has || !ok {
					continue
				}
				if b.Digests == nil {
					b.Digests = map[string]string{}
				}
				b.Digests[id] = d
				filled = true
			}
		}
	}
	return filled
}

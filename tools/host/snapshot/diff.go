package snapshot

import (
	"fmt"
	"sort"
	"strings"
)

// Difference is one way the machine differs between two snapshots.
type Difference struct {
	Section string
	// Item is what differs: a path, a mount, a rule, a setting's name.
	Item string
	// Change says how, in words: "appeared", "disappeared", "is 1 after, 0
	// before", "compared before, not after: why".
	Change string
}

func (d Difference) String() string { return fmt.Sprintf("%s %s %s", d.Section, d.Item, d.Change) }

// Diff lists every difference from before to after, section by section in
// a stable order. A section compared in one snapshot and not the other is
// a difference too (an engine that began to answer, a tool installed).
func Diff(before, after *Snapshot) []Difference {
	sections := map[string]bool{}
	for _, s := range []*Snapshot{before, after} {
		for k := range s.Items {
			sections[k] = true
		}
	}
	names := make([]string, 0, len(sections))
	for k := range sections {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []Difference
	for _, section := range names {
		b, inBefore := before.Items[section]
		a, inAfter := after.Items[section]
		switch {
		case !inBefore:
			out = append(out, Difference{section, "(whole section)", "compared after, not before: " + before.NotCompared[section]})
		case !inAfter:
			out = append(out, Difference{section, "(whole section)", "compared before, not after: " + after.NotCompared[section]})
		case section == Kernel:
			out = append(out, settingsDiff(b, a)...)
		default:
			out = append(out, itemsDiff(section, b, a)...)
		}
	}
	return out
}

// itemsDiff compares two lists as multisets: a path mounted twice after
// and once before is one mount that appeared.
func itemsDiff(section string, before, after []string) []Difference {
	count := map[string]int{}
	for _, i := range after {
		count[i]++
	}
	for _, i := range before {
		count[i]--
	}
	var out []Difference
	for _, item := range sortedKeys(count) {
		switch n := count[item]; {
		case n > 0:
			out = append(out, Difference{section, item, appeared("appeared", n)})
		case n < 0:
			out = append(out, Difference{section, item, appeared("disappeared", -n)})
		}
	}
	return out
}

func appeared(word string, n int) string {
	if n == 1 {
		return word
	}
	return fmt.Sprintf("%s (%d times)", word, n)
}

// settingsDiff compares name=value items by name.
func settingsDiff(before, after []string) []Difference {
	b, a := settings(before), settings(after)
	names := map[string]int{}
	for k := range b {
		names[k]++
	}
	for k := range a {
		names[k]++
	}
	var out []Difference
	for _, name := range sortedKeys(names) {
		bv, inB := b[name]
		av, inA := a[name]
		switch {
		case !inB:
			out = append(out, Difference{Kernel, name, fmt.Sprintf("appeared, %s (absent before: a module loaded?)", av)})
		case !inA:
			out = append(out, Difference{Kernel, name, fmt.Sprintf("disappeared (was %s)", bv)})
		case av != bv:
			out = append(out, Difference{Kernel, name, fmt.Sprintf("is %s after, %s before", av, bv)})
		}
	}
	return out
}

func settings(items []string) map[string]string {
	out := map[string]string{}
	for _, i := range items {
		k, v, _ := strings.Cut(i, "=")
		out[k] = v
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// NotCompared lists, sorted, the sections either snapshot could not read,
// with the reason: what a comparison says it left out.
func NotCompared(before, after *Snapshot) []string {
	why := map[string]string{}
	for _, s := range []*Snapshot{before, after} {
		for k, v := range s.NotCompared {
			if _, ok := why[k]; !ok {
				why[k] = v
			}
		}
	}
	out := make([]string, 0, len(why))
	for k, v := range why {
		out = append(out, fmt.Sprintf("%s: not compared: %s", k, v))
	}
	sort.Strings(out)
	return out
}

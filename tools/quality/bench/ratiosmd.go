package bench

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// ratiosMarkdown renders the ratios, each with its parts, beside the
// previous record's.
func ratiosMarkdown(b *strings.Builder, r Ratios, prev *Ratios) {
	fmt.Fprintf(b, "## Speed as ratios (`make bench`)\n\n%s, commit %s. Each ratio is of two things measured side by side in the same run on this machine, so that a slow or busy machine slows both. ", r.Date, r.Commit)
	if r.Cores > 0 && r.Load >= float64(r.Cores)/2 {
		fmt.Fprintf(b, "**Measured under load**: the load average was %.1f on %d cores when the measurement began (other work ran beside it, or had just ended).", r.Load, r.Cores)
	} else if r.Cores > 0 {
		fmt.Fprintf(b, "The load average was %.1f on %d cores when the measurement began.", r.Load, r.Cores)
	}
	if r.Ran != "" {
		fmt.Fprintf(b, " Ran: %s.", r.Ran)
	}
	b.WriteString("\n\n")
	if len(r.Worse) > 0 {
		b.WriteString("**Worse than the previous record by more than the noise:**\n\n")
		for _, w := range r.Worse {
			fmt.Fprintf(b, "- %s\n", w)
		}
		b.WriteString("\n")
	}
	if len(r.Uncompared) > 0 {
		b.WriteString("**Not compared with the previous record:**\n\n")
		for _, u := range sameReason(r.Uncompared) {
			fmt.Fprintf(b, "- %s\n", u)
		}
		b.WriteString("\n")
	}
	b.WriteString("| ratio | now | goal | noise (half the samples' spread) | samples (in bench.json) | before |\n|---|---|---|---|---|---|\n")
	var p Ratios
	if prev != nil {
		p = *prev
	}
	for _, x := range namedRatios(r, p) {
		if x.now == nil {
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %s | ±%.2f× | %d | %s |\n", x.name, times(x.now.Value()), goal(x.now.Goal), x.now.Noise(), len(x.now.Samples), beforeOf(x.then))
	}
	b.WriteString("\n")
	said := map[string]string{}
	for _, x := range namedRatios(r, p) {
		if x.now != nil {
			short, _, _ := strings.Cut(x.name, ":")
			ratioParts(b, short, *x.now, said)
		}
	}
}

type namedRatio struct {
	name      string
	now, then *SpeedRatio
}

func namedRatios(r, p Ratios) []namedRatio {
	return []namedRatio{
		{"case: a case against the scheduler's own time for its pods", r.Case, p.Case},
		{"start: a cell's cluster start against a bare kube-apiserver and etcd", r.Start, p.Start},
		{"vendor: certify on a running cluster, per case, against the e2e framework's per-test overhead", r.Vendor, p.Vendor},
		{"overhead: a certify case's namespace and clean-up against the e2e framework's per-test overhead", r.Overhead, p.Overhead},
	}
}

// ratioParts renders a ratio's note, medians and parts under its short name
// (the table above gives its whole name and how many samples bench.json
// holds), each list once: the parts largest first, which above the goal is
// what stands in the way. said holds what an earlier ratio of the page
// said of its other side (the note after " against ", the other side's
// parts), so a ratio measured against the same names that one instead.
func ratioParts(b *strings.Builder, name string, r SpeedRatio, said map[string]string) {
	num, den := r.Medians()
	note := r.Note
	if subject, other, ok := strings.Cut(note, " against "); ok {
		if first := said["note:"+other]; first != "" {
			note = subject + " against the same as " + first
		} else {
			said["note:"+other] = name
		}
	}
	fmt.Fprintf(b, "### %s\n\n%s.\n\nMedian of the samples: %s against %s. ", name, note, secs(num), secs(den))
	if r.Goal > 0 && r.Value() > r.Goal {
		fmt.Fprintf(b, "Above its goal of %.1f×: what stands in the way, largest first: %s.", r.Goal, largestFirst(r.Parts))
	} else if parts := largestFirst(r.Parts); parts != "" {
		fmt.Fprintf(b, "Its parts, largest first: %s.", parts)
	}
	var left []string
	for _, p := range r.Parts {
		if strings.HasSuffix(p.What, leftOut) {
			left = append(left, strings.TrimSuffix(p.What, leftOut)+" "+secs(p.Seconds))
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(b, " Left out of the ratio: %s.", strings.Join(left, ", "))
	}
	if len(r.Floor) > 0 {
		floor := largestFirst(r.Floor)
		if first := said["floor:"+floor]; first != "" {
			fmt.Fprintf(b, " The other side: as for %s.", first)
		} else {
			said["floor:"+floor] = name
			fmt.Fprintf(b, " The other side: %s.", floor)
		}
	}
	b.WriteString("\n\n")
}

// sameReason joins the "name: reason" lines that give one reason into
// one line naming them all, in the order they came.
func sameReason(lines []string) []string {
	var reasons []string
	names := map[string][]string{}
	for _, l := range lines {
		name, reason, ok := strings.Cut(l, ": ")
		if !ok {
			name, reason = "", l
		}
		if names[reason] == nil {
			reasons = append(reasons, reason)
		}
		names[reason] = append(names[reason], name)
	}
	out := make([]string, len(reasons))
	for i, reason := range reasons {
		out[i] = reason
		if ns := slices.DeleteFunc(names[reason], func(n string) bool { return n == "" }); len(ns) > 0 {
			out[i] = strings.Join(ns, ", ") + ": " + reason
		}
	}
	return out
}

func times(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", v)
}

func goal(g float64) string {
	if g <= 0 {
		return "-"
	}
	return fmt.Sprintf("≤ %.1f×", g)
}

func beforeOf(r *SpeedRatio) string {
	if r == nil {
		return "-"
	}
	return times(r.Value())
}

// largestFirst lists parts by their seconds, largest first.
func largestFirst(parts []Part) string {
	s := slices.Clone(parts)
	slices.SortStableFunc(s, func(a, b Part) int { return cmp.Compare(b.Seconds, a.Seconds) })
	var out []string
	for _, p := range s {
		if p.Seconds > 0 && !strings.HasSuffix(p.What, leftOut) {
			out = append(out, p.What+" "+secs(p.Seconds))
		}
	}
	return strings.Join(out, ", ")
}

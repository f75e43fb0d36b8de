package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/internal/textline"
)

// The top of report.html: the verdict in words and colour, then on a
// failing run each failure with its reason, blocking ones first, then the
// facts of the run.

type htmlHeadline struct {
	// Verdict is the claims' verdict together: NOT CONFORMANT when any
	// claim is not, CONFORMANT when some are and none is not.
	Verdict, VerdictClass string
	// Run is the run's result, FAILED as its exit status is 1: a case
	// failed (informing ones too), an outcome differs from the golden
	// table, or a claim is not conformant.
	Run, RunClass string
	Summary       string
}

// htmlBrief is a failure at the top of the page, linking to it in full.
type htmlBrief struct {
	Anchor, Name, Standing, Rerun string
	Lines                         []string
}

func headlineOf(run Run, failed, blocking, informing int) htmlHeadline {
	h := htmlHeadline{Verdict: "NO CLAIM JUDGED", VerdictClass: "na", Run: "PASSED", RunClass: "pass"}
	for _, v := range run.Verdicts {
		switch {
		case v.State == NotConformant:
			h.Verdict, h.VerdictClass = "NOT CONFORMANT", "fail"
		case v.State == Conformant && h.VerdictClass != "fail":
			h.Verdict, h.VerdictClass = "CONFORMANT", "pass"
		}
	}
	if failed > 0 || run.About.GoldenDiffs > 0 || h.VerdictClass == "fail" {
		h.Run, h.RunClass = "FAILED", "fail"
	}
	switch {
	case failed == 0:
		h.Summary = "No case failed."
	case informing == 0:
		h.Summary = fmt.Sprintf("%s, each blocking.", textline.Count(failed, "case")+" failed")
	case blocking == 0:
		h.Summary = fmt.Sprintf("%s, each informing: none blocks a claim.", textline.Count(failed, "case")+" failed")
	default:
		h.Summary = fmt.Sprintf("%s: %d blocking, %d informing (never blocking).", textline.Count(failed, "case")+" failed", blocking, informing)
	}
	if n := run.About.GoldenDiffs; n > 0 {
		verb := " differ"
		if n == 1 {
			verb = " differs"
		}
		h.Summary += " " + textline.Count(n, "outcome") + verb + " from the golden table."
	}
	return h
}

// factsOf is the header of facts: what ran, when, how long, and whether
// it matched the golden table.
func factsOf(a About, s scrubber) []htmlFact {
	var out []htmlFact
	add := func(name, value string) {
		if value != "" {
			out = append(out, htmlFact{name, value})
		}
	}
	add("run", a.RunID)
	if !a.Began.IsZero() {
		add("date", a.Began.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if a.Seconds > 0 {
		add("duration", duration(a.Seconds))
	}
	add("draconform", a.Version)
	if len(a.Command) > 0 {
		add("command", s.Command(a.Command))
	}
	golden := s.Text(a.Golden)
	if golden == "" {
		golden = "not compared (no --golden)"
	}
	add("golden", golden)
	add("shard", a.Shard)
	return out
}

// duration is seconds as a person reads them: 47s, 3m 05s, 1h 02m.
func duration(seconds float64) string {
	d := time.Duration(seconds * float64(time.Second)).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", seconds)
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
}

// htmlVerdict is a line of the first block: one claim's verdict, or the
// claims of one implementation not applicable for one reason together
// (a narrowed run makes every claim so, for the same reason).
type htmlVerdict struct {
	Class, State, Claims, Target, Title, Reason, ID string
	Blocking                                        []string
}

func verdictLines(verdicts []Verdict) []htmlVerdict {
	var out []htmlVerdict
	group := map[string]int{} // target and reason: its line
	for _, v := range verdicts {
		line := htmlVerdict{Class: verdictClass(v.State), State: strings.ToUpper(string(v.State)), Claims: v.Claim, Target: v.Target,
			Title: v.Title + ". ", Reason: v.Reason, Blocking: v.Blocking, ID: "verdict-" + v.Claim + "-" + v.Target}
		if v.State != NotApplicable {
			out = append(out, line)
			continue
		}
		key := v.Target + "\x00" + v.Reason
		i, ok := group[key]
		if !ok {
			group[key] = len(out)
			out = append(out, line)
			continue
		}
		out[i].Claims += ", " + v.Claim
		out[i].Title = ""
	}
	return out
}

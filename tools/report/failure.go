package report

import (
	"regexp"
	"strings"

	"github.com/draconform/draconform/tools/internal/textline"
)

// A failed case's message is the step that failed on its first line
// ("step 2 at suites/x.yaml:348, pod p1 is scheduled:") and the reason,
// with the want/got of its expectation, after it. The terminal, the JUnit
// report and the diagnostics file all show the same few lines of it.

// DetailLines is how many lines of a failure's reason the terminal and the
// top of a diagnostics file show; the whole message is in the reports.
const DetailLines = 8

// Standing says what a failure means for a verdict, or "" for one that
// blocks like any other: informing failures never block a claim, and are
// said to be so wherever they appear.
func Standing(o Outcome) string {
	switch {
	case o.Informing && o.Contested:
		return "informing: a contested reading of the KEP, never blocking"
	case o.Informing && o.Known:
		return "informing: a known upstream defect, never blocking"
	case o.Informing:
		return "informing, never blocking"
	}
	return ""
}

// FailureReason is a failure on one line: its standing, then its message
// folded, cut at 400 bytes.
func FailureReason(o Outcome) string {
	s := strings.Join(strings.Fields(o.Message), " ")
	if len(s) > 400 {
		s = s[:400] + " …"
	}
	if st := Standing(o); st != "" {
		s = "(" + st + ") " + s
	}
	return s
}

// FailureDetail is a failure's message in at most max lines: the failing
// step, then its reason and diff, the rest counted.
func FailureDetail(message string, max int) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(message), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimRight(l, " \t"))
		}
	}
	if len(lines) > max {
		rest := len(lines) - max + 1
		lines = append(lines[:max-1], "… "+textline.Count(rest, "more line")+" in the report")
	}
	return lines
}

// RerunFlags are, by target, the flags that give a run that target where
// "--provider <target>" would not: binaries from elsewhere run as
// --provider local with their --bin-dir, a cluster behind a kubeconfig
// with its --kubeconfig. The command line knows them; the report repeats
// them.
type RerunFlags map[string]string

// RerunCommand is the command line that runs the outcome's case alone
// again: its implementation as the provider (or the flags that give it),
// its cell, and its id as the focus.
func RerunCommand(o Outcome, flags RerunFlags) string {
	cmd := "draconform run"
	if f, ok := flags[o.Target]; ok {
		cmd += " " + f
	} else if o.Target != "" {
		cmd += " --provider " + o.Target
	}
	if o.Cell != "" {
		cmd += " --cells " + o.Cell
	}
	return cmd + " --focus '" + strings.ReplaceAll(regexp.QuoteMeta(o.ID), "'", `'\''`) + "'"
}

// FailureBlock is what the terminal and the top of a diagnostics file say
// of a failure, each line after indent: whether it blocks, the failing step
// and its reason with the want/got diff (at most DetailLines lines), and
// the command that reruns the case alone, then what --keep-on-failure kept
// of it.
func FailureBlock(o Outcome, indent string, flags RerunFlags) string {
	var b strings.Builder
	if st := Standing(o); st != "" {
		b.WriteString(indent + "(" + st + ")\n")
	}
	for _, l := range FailureDetail(o.Message, DetailLines) {
		b.WriteString(indent + l + "\n")
	}
	b.WriteString(indent + "rerun: " + RerunCommand(o, flags) + "\n")
	for _, l := range strings.Split(o.Kept, "\n") {
		if l != "" {
			b.WriteString(indent + l + "\n")
		}
	}
	return b.String()
}

// FailureText is a failure's whole message for a report, with what
// --keep-on-failure kept of the case after it.
func FailureText(o Outcome) string {
	if o.Kept == "" {
		return o.Message
	}
	return strings.TrimRight(o.Message, "\n") + "\n\n" + o.Kept
}

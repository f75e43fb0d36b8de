// Package printenv is the workload side of the test driver: a container
// started with `draconform-driver print-env` logs its whole environment,
// the variables its CDI devices gave it among them (the test driver's
// DRACONFORM_* ones, or any other driver's), so a test case reads the
// allocation from the pod log, and then keeps the pod running until it is
// deleted.
package printenv

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Print writes every variable of environ (as os.Environ gives it) as
// KEY=VALUE lines, sorted by key: a driver's variables have names draconform
// cannot know, so the case names what it looks for. A newline in a value is
// written as \n, so that every line is one variable.
func Print(w io.Writer, environ []string) error {
	type entry struct{ key, value string }
	var entries []entry
	for _, kv := range environ {
		key, value, _ := strings.Cut(kv, "=")
		entries = append(entries, entry{key, strings.ReplaceAll(value, "\n", `\n`)})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s=%s\n", e.key, e.value)
	}
	// One write, so the log never holds half of the list.
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("print environment: %w", err)
	}
	return nil
}

// Run prints the environment, then blocks until ctx is done (the caller
// cancels it on SIGTERM).
func Run(ctx context.Context, w io.Writer, environ []string) error {
	if err := Print(w, environ); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

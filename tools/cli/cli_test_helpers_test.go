package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// buildCLI builds draconform into a temporary directory: the tests that run
// it as a user would need a process of its own (ginkgo runs one suite per
// process, and Ctrl-C must reach the CLI, not the test).
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "draconform")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/draconform").CombinedOutput(); err != nil {
		t.Fatalf("building draconform: %v\n%s", err, out)
	}
	return bin
}

// cliRun is a draconform process whose output the test reads line by line.
type cliRun struct {
	cmd   *exec.Cmd
	lines chan string
	mu    sync.Mutex
	out   strings.Builder
	done  chan error
}

// startCLI starts bin with args; the process is killed when the test ends,
// whatever its verdict.
func startCLI(t *testing.T, bin string, args ...string) *cliRun {
	t.Helper()
	r := &cliRun{cmd: exec.Command(bin, args...), lines: make(chan string, 1024)}
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = r.cmd.Stdout
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			r.mu.Lock()
			r.out.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			select {
			case r.lines <- sc.Text():
			default: // nobody waits for lines any more; the output keeps them
			}
		}
		close(r.lines)
	}()
	return r
}

// waitFor reads lines until match accepts one; false if the output ends
// or within passes first.
func (r *cliRun) waitFor(match func(line string) bool, within time.Duration) bool {
	deadline := time.After(within)
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				return false
			}
			if match(line) {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

// output is everything the process printed so far.
func (r *cliRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// interrupt sends Ctrl-C and waits for the process to end: whether it
// ended within the time given, and its exit error.
func (r *cliRun) interrupt(within time.Duration) (bool, error) {
	return r.signal(os.Interrupt, within)
}

// signal sends sig and waits up to within for the process to end.
func (r *cliRun) signal(sig os.Signal, within time.Duration) (bool, error) {
	if err := r.cmd.Process.Signal(sig); err != nil {
		return false, err
	}
	if r.done == nil {
		r.done = make(chan error, 1)
		go func() { r.done <- r.cmd.Wait() }()
	}
	select {
	case err := <-r.done:
		return true, err
	case <-time.After(within):
		return false, nil
	}
}

package k8sbuild

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// GoBuild is one `go build -o OutDir/ Packages...` in a module.
type GoBuild struct {
	ModuleDir string
	// Env is added to ours (CompileEnv), after it (CGO_ENABLED, GOWORK).
	Env []string
	// Flags go before -o, after CompileFlags and -ldflags=LinkFlags
	// (-buildvcs=false, an -ldflags of its own).
	Flags    []string
	Packages []string
	OutDir   string
	// Who prefixes progress lines; What names the build in them.
	Who, What string
	// Quiet keeps the compiler's output for the error instead of streaming
	// it, and writes no heartbeat: for builds of seconds.
	Quiet bool
	Log   io.Writer
}

// BinaryName is what `go build -o dir/` names the output of pkg.
func BinaryName(pkg string) string {
	return path.Base(strings.TrimSuffix(pkg, "/"))
}

// Run builds. Cancelling ctx also stops the compilers and linkers go
// spawns, and the whole build dies with this process.
func (g GoBuild) Run(ctx context.Context) error {
	log := NewSyncWriter(g.Log)
	if err := os.MkdirAll(g.OutDir, 0o755); err != nil {
		return fmt.Errorf("%s: creating %s: %w", g.Who, g.OutDir, err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("%s: finding the go command: %w", g.Who, err)
	}
	args := append(append(append([]string{"build"}, buildFlags(g.Flags)...), "-o", g.OutDir+string(filepath.Separator)), g.Packages...)
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = g.ModuleDir
	cmd.Env = append(os.Environ(), buildEnv(g.Env)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	what := g.What
	if what == "" {
		what = strings.Join(g.Packages, " ")
	}
	began := time.Now()
	if g.Quiet {
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: go %s: %w\n%s", g.Who, strings.Join(args, " "), err, out)
		}
		log.Printf("%s: built %s in %.1fs", g.Who, what, time.Since(began).Seconds())
		return nil
	}
	cmd.Stdout, cmd.Stderr = log, log
	log.Printf("%s: (cd %s && %sgo %s)", g.Who, g.ModuleDir, envPrefix(buildEnv(g.Env)), shellJoin(args))
	// go build is silent until it fails or ends; a heartbeat shows a long
	// cold build is alive.
	stop := Heartbeat(log, time.Minute, g.Who+": still building "+what)
	err = cmd.Run()
	stop()
	if err != nil {
		return fmt.Errorf("%s: building %s in %s: %w", g.Who, what, g.ModuleDir, err)
	}
	log.Printf("%s: built %s in %s", g.Who, what, time.Since(began).Round(time.Second))
	return nil
}

// shellJoin quotes the arguments with spaces (-ldflags=-s -w), so that
// the printed command can be pasted.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if strings.ContainsAny(a, " \t\"'") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

func envPrefix(env []string) string {
	if len(env) == 0 {
		return ""
	}
	return strings.Join(env, " ") + " "
}

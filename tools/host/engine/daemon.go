package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/draconform/draconform/tools/internal/logtail"
	"k8s.io/apimachinery/pkg/util/wait"
)

// daemon starts and stops the dockerd draconform runs.
type daemon interface {
	// start runs dockerd with args and waits until it answers at host.
	start(ctx context.Context, stateDir, host string, args []string) error
	stop(ctx context.Context, stateDir string) error
	running(stateDir string) (bool, int)
	pidFile(stateDir string) string
}

// processDaemon runs dockerd as a process of its own session, so that it
// outlives the command that started it (`draconform engine up`) and a
// Ctrl-C in the terminal does not reach it; its pid file says it is ours.
type processDaemon struct{ log io.Writer }

func (processDaemon) pidFile(stateDir string) string { return filepath.Join(stateDir, "dockerd.pid") }

func (d processDaemon) start(ctx context.Context, stateDir, host string, args []string) error {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(strings.TrimPrefix(host, "unix://")), 0o755); err != nil {
		return err
	}
	logFile, err := os.OpenFile(filepath.Join(stateDir, "dockerd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	fmt.Fprintf(logFile, "\n=== draconform starts dockerd at %s, args %v ===\n", time.Now().Format(time.RFC3339), args)
	// A pid file of our own beside dockerd's --pidfile, which dockerd
	// removes on exit: ours must say whether the engine that runs is
	// draconform's.
	cmd := exec.Command("dockerd", args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting dockerd: %w", err)
	}
	pid := cmd.Process.Pid
	if err := os.WriteFile(d.pidFile(stateDir), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var exitErr error
	err = wait.PollUntilContextTimeout(ctx, 300*time.Millisecond, 60*time.Second, false, func(ctx context.Context) (bool, error) {
		select {
		case exitErr = <-exited:
			return false, errExited
		default:
		}
		return exec.CommandContext(ctx, "docker", "--host", host, "info", "--format", "{{.ServerVersion}}").Run() == nil, nil
	})
	switch {
	case err == nil:
		// Released: the engine outlives this process on purpose.
		_ = cmd.Process.Release()
		return nil
	case errors.Is(err, errExited):
		_ = os.Remove(d.pidFile(stateDir))
		return fmt.Errorf("dockerd exited at start (%v); its log %s ends:\n%s", exitErr, logFile.Name(), logTail(logFile.Name(), 15))
	case ctx.Err() != nil:
		_ = d.stop(context.Background(), stateDir)
		return ctx.Err()
	}
	_ = d.stop(context.Background(), stateDir)
	return fmt.Errorf("dockerd did not answer within 60 s; its log %s ends:\n%s", logFile.Name(), logTail(logFile.Name(), 15))
}

// errExited stops the start-up poll when dockerd has exited.
var errExited = errors.New("dockerd exited")

func (d processDaemon) running(stateDir string) (bool, int) {
	data, err := os.ReadFile(d.pidFile(stateDir))
	if err != nil {
		return false, 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return false, 0
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || strings.TrimSpace(string(comm)) != "dockerd" {
		return false, 0 // gone, or the pid was reused
	}
	return true, pid
}

func (d processDaemon) stop(ctx context.Context, stateDir string) error {
	ok, pid := d.running(stateDir)
	if !ok {
		_ = os.Remove(d.pidFile(stateDir))
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping dockerd (pid %d): %w", pid, err)
	}
	// dockerd stops its containers (kind nodes take a few seconds each).
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(context.Context) (bool, error) {
		alive, _ := d.running(stateDir)
		return !alive, nil
	})
	if err == nil {
		_ = os.Remove(d.pidFile(stateDir))
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	_ = os.Remove(d.pidFile(stateDir))
	return fmt.Errorf("dockerd (pid %d) did not stop within 90 s of SIGTERM and was killed", pid)
}

func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return logtail.Lines(string(data), n)
}

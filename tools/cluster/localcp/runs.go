package localcp

import (
	"context"
	"fmt"
	"strconv"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/internal/logtail"
)

// CurrentRun implements cluster.RunInspector: the process that runs comp
// now, and what it has logged since its start header.
func (c *Cluster) CurrentRun(_ context.Context, comp cluster.Component) (cluster.Run, error) {
	c.mu.Lock()
	p, ok := c.procs[comp]
	c.mu.Unlock()
	if !ok {
		return cluster.Run{}, fmt.Errorf("local: %s does not run in cell %s", comp, c.cell)
	}
	text, err := logtail.CurrentRun(p.LogPath)
	if err != nil {
		return cluster.Run{}, err
	}
	return cluster.Run{ID: strconv.Itoa(p.PID), Running: !p.Exited(), Log: text}, nil
}

// TailLog implements cluster.Cluster: the last lines of what comp (etcd,
// a control-plane component, or the node's kubelet and containerd) has
// logged in its current run; earlier runs of a restarted component would
// mislead.
func (c *Cluster) TailLog(_ context.Context, comp cluster.Component, n int) (string, error) {
	path := c.logFile(comp)
	if path == "" {
		return "", fmt.Errorf("local: %w: cell %s runs no %s", cluster.ErrNoLog, c.cell, comp)
	}
	return logtail.File(path, n)
}

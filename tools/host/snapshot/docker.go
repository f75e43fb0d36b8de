package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// The Docker sections, read where an engine answers.
const (
	DockerContainers = "Docker container"
	DockerImages     = "Docker image"
)

// docker records the containers (running or not) and images of the first
// engine that answers on one of sockets; with none, both sections are not
// compared, and say so.
func docker(ctx context.Context, sockets []string, snap *Snapshot) {
	for _, sock := range sockets {
		if _, err := os.Stat(sock); err != nil {
			continue
		}
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, "unix", sock)
			},
		}}
		var containers []struct {
			ID    string
			Names []string
			Image string
			State string
		}
		var images []struct {
			ID       string
			RepoTags []string
		}
		if err := getJSON(ctx, c, "/containers/json?all=1", &containers); err != nil {
			snap.NotCompared[DockerContainers] = fmt.Sprintf("the engine at %s does not answer: %v", sock, err)
			snap.NotCompared[DockerImages] = snap.NotCompared[DockerContainers]
			continue
		}
		if err := getJSON(ctx, c, "/images/json", &images); err != nil {
			snap.NotCompared[DockerImages] = fmt.Sprintf("the engine at %s does not list images: %v", sock, err)
		}
		delete(snap.NotCompared, DockerContainers)
		var cs, is []string
		for _, ct := range containers {
			cs = append(cs, fmt.Sprintf("%s %s (%s, %s)", short(ct.ID), strings.Join(ct.Names, ","), ct.Image, ct.State))
		}
		for _, im := range images {
			is = append(is, fmt.Sprintf("%s %s", short(strings.TrimPrefix(im.ID, "sha256:")), strings.Join(im.RepoTags, ",")))
		}
		snap.Items[DockerContainers] = sorted(cs)
		if _, failed := snap.NotCompared[DockerImages]; !failed {
			snap.Items[DockerImages] = sorted(is)
		}
		return
	}
	if _, tried := snap.NotCompared[DockerContainers]; !tried {
		why := "no Docker engine answers (no socket at " + strings.Join(sockets, ", ") + ")"
		snap.NotCompared[DockerContainers], snap.NotCompared[DockerImages] = why, why
	}
}

func getJSON(ctx context.Context, c *http.Client, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://docker"+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(into)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

package kind

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/draconform/draconform/tools/cluster"
)

// criContainer is what the provider needs of a `crictl ps -o json` entry.
type criContainer struct {
	ID        string
	Name      string
	State     string // CONTAINER_RUNNING, CONTAINER_EXITED, ...
	CreatedAt int64  // nanoseconds
}

func (c criContainer) running() bool { return c.State == "CONTAINER_RUNNING" }
func (c criContainer) exited() bool  { return c.State == "CONTAINER_EXITED" }

// crictlPsArgv lists every container, exited ones included, of exactly
// that name (crictl's --name is a regular expression).
func crictlPsArgv(c cluster.Component) []string {
	return []string{"crictl", "ps", "-a", "--name", "^" + string(c) + "$", "-o", "json"}
}

// crictlLogsArgv is the end of a container's log: where a component that
// refuses its flags says why.
func crictlLogsArgv(id string) []string {
	return []string{"crictl", "logs", "--tail", "40", id}
}

// crictlHelpArgv runs the component's own binary, in its running
// container, for the feature gates it knows. The absolute path needs no
// PATH in a distroless image, and is where a KEP build is mounted.
func crictlHelpArgv(id string, c cluster.Component) []string {
	return []string{"crictl", "exec", id, "/usr/local/bin/" + string(c), "--help"}
}

// parseCrictlPs reads `crictl ps -o json`, newest container first. crictl
// prints createdAt as a string (protobuf JSON of an int64); a number is
// accepted too.
func parseCrictlPs(data []byte) ([]criContainer, error) {
	var raw struct {
		Containers []struct {
			ID       string `json:"id"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			State     string          `json:"state"`
			CreatedAt json.RawMessage `json:"createdAt"`
		} `json:"containers"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("reading crictl ps output: %w", err)
	}
	out := make([]criContainer, 0, len(raw.Containers))
	for _, c := range raw.Containers {
		created, err := parseInt64(c.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("container %s: createdAt: %w", c.ID, err)
		}
		out = append(out, criContainer{ID: c.ID, Name: c.Metadata.Name, State: c.State, CreatedAt: created})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt > out[j].CreatedAt })
	return out, nil
}

func parseInt64(raw json.RawMessage) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		return strconv.ParseInt(s, 10, 64)
	}
	return strconv.ParseInt(string(raw), 10, 64)
}

func listContainers(ctx context.Context, n nodes.Node, c cluster.Component) ([]criContainer, error) {
	out, err := nodeRun(ctx, n, nil, crictlPsArgv(c)...)
	if err != nil {
		return nil, err
	}
	return parseCrictlPs(out)
}

// newContainers are those not in before: the ones the kubelet started
// after a manifest changed.
func newContainers(all []criContainer, before map[string]bool) []criContainer {
	var out []criContainer
	for _, c := range all {
		if !before[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

func containerIDs(cs []criContainer) map[string]bool {
	out := map[string]bool{}
	for _, c := range cs {
		out[c.ID] = true
	}
	return out
}

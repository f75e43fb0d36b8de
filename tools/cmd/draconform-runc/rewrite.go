package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// rewrite edits the document the given runc invocation will read, if any.
func (w *wrapper) rewrite(inv invocation) error {
	switch inv.subcommand {
	case "create", "run":
		bundle := inv.bundle
		if bundle == "" {
			// runc reads config.json from its working directory when no
			// bundle is given.
			bundle = "."
		}
		path := filepath.Join(bundle, "config.json")
		return rewriteFile(path, func(doc map[string]json.RawMessage) (bool, error) { return w.fixConfig(doc, path) })
	case "exec":
		if inv.processFile == "" {
			// Without --process runc builds the process from the container's
			// config and flags; the container was created through us already.
			return nil
		}
		return rewriteFile(inv.processFile, w.fixProcess)
	}
	return nil
}

// rewriteFile applies fix to the JSON object in path and writes the result
// back only if fix changed something, so documents that need no edit stay
// byte for byte as containerd wrote them.
func rewriteFile(path string, fix func(map[string]json.RawMessage) (bool, error)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// Raw messages keep every field this wrapper does not know, including
	// ones added to the runtime spec after it was written.
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	changed, err := fix(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !changed {
		return nil
	}
	out, err := marshal(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	// In place, keeping inode, owner and mode: runc only reads the file
	// after this process has exec'd it.
	return os.WriteFile(path, out, info.Mode().Perm())
}

// fixConfig edits a runtime bundle's config.json (at path, which names
// the container in what is dropped), where the process is a member of the
// top-level object.
func (w *wrapper) fixConfig(doc map[string]json.RawMessage, path string) (bool, error) {
	seccompChanged, err := w.fitSeccomp(doc, path)
	if err != nil {
		return false, err
	}
	raw, ok := doc["process"]
	if !ok || isNull(raw) {
		return seccompChanged, nil
	}
	var process map[string]json.RawMessage
	if err := json.Unmarshal(raw, &process); err != nil {
		return false, fmt.Errorf("process: %w", err)
	}
	changed, err := w.fixProcess(process)
	if err != nil {
		return false, err
	}
	if !changed {
		return seccompChanged, nil
	}
	out, err := marshal(process)
	if err != nil {
		return false, err
	}
	doc["process"] = out
	return true, nil
}

// fixProcess edits an OCI process object: the one inside config.json, or the
// whole file runc exec --process reads.
func (w *wrapper) fixProcess(process map[string]json.RawMessage) (bool, error) {
	capsChanged, err := w.fixCapabilities(process)
	if err != nil {
		return false, err
	}
	oomChanged, err := fixOOMScoreAdj(process)
	if err != nil {
		return false, err
	}
	return capsChanged || oomChanged, nil
}

func (w *wrapper) fixCapabilities(process map[string]json.RawMessage) (bool, error) {
	raw, ok := process["capabilities"]
	if !ok || isNull(raw) {
		return false, nil
	}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(raw, &caps); err != nil {
		return false, fmt.Errorf("capabilities: %w", err)
	}
	changed := false
	// Every list of names, not only the five sets the spec has today, since
	// any set runc is asked to fill with the capability fails the same way.
	for setName, rawSet := range caps {
		var names []string
		if json.Unmarshal(rawSet, &names) != nil || names == nil {
			continue
		}
		kept := make([]string, 0, len(names))
		for _, n := range names {
			if !w.unavailable[n] {
				kept = append(kept, n)
			}
		}
		if len(kept) == len(names) {
			continue
		}
		out, err := marshal(kept)
		if err != nil {
			return false, err
		}
		caps[setName] = out
		changed = true
	}
	if !changed {
		return false, nil
	}
	out, err := marshal(caps)
	if err != nil {
		return false, err
	}
	process["capabilities"] = out
	return true, nil
}

func fixOOMScoreAdj(process map[string]json.RawMessage) (bool, error) {
	raw, ok := process["oomScoreAdj"]
	if !ok || isNull(raw) {
		return false, nil
	}
	var adj json.Number
	if err := json.Unmarshal(raw, &adj); err != nil {
		return false, fmt.Errorf("oomScoreAdj: %w", err)
	}
	if !strings.HasPrefix(adj.String(), "-") {
		return false, nil
	}
	// 0 is the closest value to the requested one that may be set here;
	// deleting the field would leave the container at whatever the shim
	// runs with instead.
	process["oomScoreAdj"] = json.RawMessage("0")
	return true, nil
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// marshal encodes without HTML escaping, so strings such as "<", ">" and "&"
// in annotations or args come out as containerd wrote them.
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(out) == 0 {
		return nil, errors.New("empty encoding")
	}
	return out, nil
}

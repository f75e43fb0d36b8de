package kind

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/cluster"
)

const gatesFlag = "--feature-gates="

// SetFeatureGates returns the static pod manifest with the command of the
// container named component carrying exactly gates: the --feature-gates
// flag replaced when present, added when missing (in kubeadm's
// alphabetical flag order), removed when gates is empty. It edits the YAML
// tree, not the text, so a flag that happens to be wrapped, quoted or
// repeated cannot fool it, and every other byte of meaning stays.
func SetFeatureGates(manifest []byte, component cluster.Component, gates cluster.Gates) ([]byte, error) {
	doc, cmd, err := commandOf(manifest, component)
	if err != nil {
		return nil, err
	}
	var kept []*yaml.Node
	for i, n := range cmd.Content {
		if i > 0 && isGatesFlag(n.Value) {
			continue
		}
		kept = append(kept, n)
	}
	if len(gates) > 0 {
		flag := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: gatesFlag + gates.Flag()}
		at := len(kept)
		for i := 1; i < len(kept); i++ {
			if kept[i].Value > flag.Value {
				at = i
				break
			}
		}
		kept = append(kept[:at], append([]*yaml.Node{flag}, kept[at:]...)...)
	}
	cmd.Content = kept
	out, err := encodeManifest(doc)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s manifest: %w", component, err)
	}
	return out, nil
}

// FeatureGatesOf reads the gates the manifest gives component, so that a
// cluster adopted from an earlier run reports what it really runs.
func FeatureGatesOf(manifest []byte, component cluster.Component) (cluster.Gates, error) {
	_, cmd, err := commandOf(manifest, component)
	if err != nil {
		return nil, err
	}
	args := make([]string, 0, len(cmd.Content))
	for _, n := range cmd.Content {
		args = append(args, n.Value)
	}
	return gatesInCommand(args)
}

// gatesInCommand parses the --feature-gates flags of a command line; when
// the flag repeats, the last one wins, as it does for the component.
func gatesInCommand(args []string) (cluster.Gates, error) {
	out := cluster.Gates{}
	for i, a := range args {
		if i == 0 || !isGatesFlag(a) {
			continue
		}
		value, ok := strings.CutPrefix(a, gatesFlag)
		if !ok {
			return nil, fmt.Errorf("%q: only the --feature-gates=value form is understood", a)
		}
		out = cluster.Gates{}
		for _, kv := range strings.Split(value, ",") {
			if kv = strings.TrimSpace(kv); kv == "" {
				continue
			}
			name, val, ok := strings.Cut(kv, "=")
			b, err := strconv.ParseBool(val)
			if !ok || err != nil {
				return nil, fmt.Errorf("feature gate %q is not Name=true|false", kv)
			}
			out[name] = b
		}
	}
	return out, nil
}

func isGatesFlag(arg string) bool {
	return arg == strings.TrimSuffix(gatesFlag, "=") || strings.HasPrefix(arg, gatesFlag)
}

// commandOf finds spec.containers[name=component].command in a pod
// manifest. kubeadm puts the whole command line there (binary, then
// flags) and leaves args empty.
func commandOf(manifest []byte, component cluster.Component) (*yaml.Node, *yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(manifest, &doc); err != nil {
		return nil, nil, fmt.Errorf("the %s manifest is not YAML: %w", component, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil, fmt.Errorf("the %s manifest is empty", component)
	}
	containers := lookup(doc.Content[0], "spec", "containers")
	if containers == nil || containers.Kind != yaml.SequenceNode {
		return nil, nil, fmt.Errorf("the %s manifest has no spec.containers", component)
	}
	var names []string
	for _, c := range containers.Content {
		name := lookup(c, "name")
		if name == nil {
			continue
		}
		names = append(names, name.Value)
		if name.Value != string(component) {
			continue
		}
		cmd := lookup(c, "command")
		if cmd == nil || cmd.Kind != yaml.SequenceNode || len(cmd.Content) == 0 {
			return nil, nil, fmt.Errorf("container %s of its manifest has no command list", component)
		}
		return &doc, cmd, nil
	}
	sort.Strings(names)
	return nil, nil, fmt.Errorf("the manifest has no container %s (it has %s)", component, strings.Join(names, ", "))
}

// lookup follows mapping keys from n; nil when one is missing.
func lookup(n *yaml.Node, path ...string) *yaml.Node {
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return n
}

// restartAnnotation marks a static pod manifest edited only to have the
// kubelet start its component anew: a changed manifest is a new pod, with
// none of the crash-loop back-off a stopped container collects.
const restartAnnotation = "draconform.dev/restarted-at"

// SetRestartAnnotation returns the manifest with metadata.annotations
// carrying restartAnnotation=value, the rest of the tree unchanged.
func SetRestartAnnotation(manifest []byte, value string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(manifest, &doc); err != nil {
		return nil, fmt.Errorf("the manifest is not YAML: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the manifest is not a YAML mapping")
	}
	meta := child(doc.Content[0], "metadata")
	annotations := child(meta, "annotations")
	if v := lookup(annotations, restartAnnotation); v != nil {
		v.Value = value
	} else {
		annotations.Content = append(annotations.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: restartAnnotation},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
	}
	out, err := encodeManifest(&doc)
	if err != nil {
		return nil, fmt.Errorf("encoding the manifest: %w", err)
	}
	return out, nil
}

// encodeManifest writes an edited tree back with kubeadm's two-space indent.
func encodeManifest(doc *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// child is the mapping under key in n, made (or made a mapping, replacing
// an empty value such as "annotations: null") where it is not one.
func child(n *yaml.Node, key string) *yaml.Node {
	if v := lookup(n, key); v != nil {
		if v.Kind != yaml.MappingNode {
			*v = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		return v
	}
	v := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return v
}

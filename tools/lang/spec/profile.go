package spec

import (
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"
)

// Vars are the variables the profile defines for every case (ProfileVarNames):
// strings, and profileCommand and profileOutput (lists), profileRequests,
// profileOverRequests, profileNodeSelector and profileEnv (maps), which keep
// their type where a whole ${...} scalar names them. profileSelector is the
// CEL expression a DeviceClass selects the profile's shareable devices with.
func (p *DriverProfile) Vars() Vars {
	sel := fmt.Sprintf("device.driver == %q", p.Driver)
	if p.Selector != "" {
		sel += " && (" + p.Selector + ")"
	}
	v := Vars{}
	for name, value := range map[string]string{"profileDriver": p.Driver, "profileSelector": sel, "profileImage": p.Workload.Image} {
		v[name] = *ScalarNode(value)
	}
	v["profileCommand"] = listNode(p.Workload.Command)
	v["profileOutput"] = listNode(p.Output)
	v["profileRequests"] = mapNode(p.ShareRequests())
	v["profileOverRequests"] = mapNode(p.OverShareRequests())
	v["profileNodeSelector"] = mapNode(p.NodeSelector)
	v["profileEnv"] = mapNode(p.Env)
	return v
}

func listNode(items []string) yaml.Node {
	n := yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, c := range items {
		n.Content = append(n.Content, ScalarNode(c))
	}
	return n
}

func mapNode(m map[string]string) yaml.Node {
	n := yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n.Content = append(n.Content, ScalarNode(k), ScalarNode(m[k]))
	}
	return n
}

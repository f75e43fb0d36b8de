package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ensureBridge makes the engine's bridge where it is missing (a restart
// finds the one the first start made).
func (o Options) ensureBridge(ctx context.Context) error {
	if _, err := os.Lstat(filepath.Join(o.host.NetClass, OwnBridge)); err == nil {
		return nil
	}
	o.logf("making the engine's own bridge %s (docker0 stays the machine's Docker's)", OwnBridge)
	if out, err := o.Run(ctx, "ip", "link", "add", "name", OwnBridge, "type", "bridge"); err != nil {
		return fmt.Errorf("ip link add name %s type bridge: %w: %s", OwnBridge, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// networkStore is libnetwork's store under the engine's data root: the
// bridge driver keeps each network's configuration there.
func (o Options) networkStore() string {
	return filepath.Join(o.DataRoot, "network", "files", "local-kv.db")
}

// bridgeNameField is how a network's bridge is named in the store: the
// bridge driver writes its configuration as JSON (encoding/json, no
// spaces) into the bolt file as it is, so the bytes are read, not the
// database, which needs no library and works whether the engine stopped
// cleanly or died.
var bridgeNameField = regexp.MustCompile(`"BridgeName":"([A-Za-z0-9_.-]{1,15})"`)

// ownBridges are the bridges of draconform's engine: OwnBridge by name,
// and those its network store names (kind's networks, br-<network id>).
// docker0 is never taken from the store: an engine draconform started
// before it had a bridge of its own named it there, and docker0 is the
// name every other engine uses too.
func (o Options) ownBridges() map[string]bool {
	own := map[string]bool{OwnBridge: true}
	data, err := os.ReadFile(o.networkStore())
	if err != nil {
		return own
	}
	for _, m := range bridgeNameField.FindAllSubmatch(data, -1) {
		if name := string(m[1]); name != "docker0" {
			own[name] = true
		}
	}
	return own
}

// linkPlan says which links `engine down` deletes: the veths attached to
// a bridge of draconform's engine (their peers were in its containers),
// then those bridges. Every other link named the way Docker names its
// own (docker0, br-*, veth*) that appeared since the record is another
// engine's: kept, with the reason.
func (o Options) linkPlan(before, now machine) (remove, kept []string) {
	own := o.ownBridges()
	var bridges []string
	for _, l := range now.Links {
		isNew := !contains(before.Links, l)
		switch {
		case own[l]:
			bridges = append(bridges, l)
		case strings.HasPrefix(l, "veth"):
			master := o.host.master(l)
			if own[master] {
				remove = append(remove, l)
			} else if isNew {
				kept = append(kept, fmt.Sprintf("link %s: it is attached to %s, not to a bridge of draconform's engine", l, orNothing(master, "no bridge")))
			}
		case isNew && (l == "docker0" || strings.HasPrefix(l, "br-")):
			kept = append(kept, fmt.Sprintf("link %s: not a bridge of draconform's engine (%s, and those its network store %s names): another engine's", l, OwnBridge, o.networkStore()))
		}
	}
	return append(remove, bridges...), kept
}

// master is the bridge a link is attached to, "" for none.
func (h hostPlaces) master(link string) string {
	target, err := os.Readlink(filepath.Join(h.NetClass, link, "master"))
	if err != nil {
		return ""
	}
	return filepath.Base(target)
}

func orNothing(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

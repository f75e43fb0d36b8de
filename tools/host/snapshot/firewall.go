package snapshot

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Packet counters change with traffic, not with rules: [packets:bytes] in
// iptables-save's output, "counter packets N bytes M" in nft's.
var (
	iptablesCounters = regexp.MustCompile(`\[\d+:\d+\]`)
	nftCounters      = regexp.MustCompile(`counter packets \d+ bytes \d+`)
)

// firewall records each command's rules, a section per command; one not
// installed is not compared, and says so.
func firewall(ctx context.Context, s Sources, snap *Snapshot) error {
	for _, c := range s.Firewall {
		section := "rule of " + c.String()
		if _, err := s.LookPath(c.Name); err != nil {
			snap.NotCompared[section] = c.Name + " is not installed"
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		out, err := s.Output(cctx, c.Name, c.Args...)
		cancel()
		if err != nil {
			return fmt.Errorf("reading the host's firewall rules with %s: %w", c, err)
		}
		var rules []string
		for _, line := range strings.Split(string(out), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue // iptables-save's dated comments
			}
			line = iptablesCounters.ReplaceAllString(line, "[0:0]")
			line = nftCounters.ReplaceAllString(line, "counter")
			rules = append(rules, line)
		}
		snap.Items[section] = sorted(rules)
	}
	return nil
}

package localcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/draconform/draconform/tools/cluster"
)

// binaryFactsFile, in the provider's OutDir, holds what its binaries said
// to --version and --help, for the run's other processes: each cell of a
// sharded run used to ask again, one binary after the other, before its
// etcd could start (six runs of 100 MB programs, 1 to 3 s a cell here).
const binaryFactsFile = "binary-facts.json"

// binaryFact is what one binary said, with what identifies the file then.
type binaryFact struct {
	Size    int64           `json:"size"`
	ModTime time.Time       `json:"modTime"`
	Version string          `json:"version"`
	Gates   map[string]bool `json:"gates"`
}

// RecordBinaryFacts asks every binary this provider's cells may run for its
// version and feature gates, several at once, and writes the answers to
// OutDir, where the run's cells, each in a process of its own, read them
// (New) instead of asking again.
func (p *Provider) RecordBinaryFacts(ctx context.Context) error {
	paths := map[string]bool{}
	for _, released := range []map[cluster.Component]bool{nil, p.allReleased()} {
		for _, comp := range append([]cluster.Component{Etcd}, cluster.Components...) {
			paths[p.opts.binary(comp, released)] = comp != Etcd
		}
	}
	facts := map[string]binaryFact{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	for path, gated := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			fi, err := os.Stat(path)
			if err != nil {
				return // the cell that needs it says so when it starts
			}
			f := binaryFact{Size: fi.Size(), ModTime: fi.ModTime(), Version: p.binaryVersion(ctx, path)}
			if gated {
				if f.Gates, err = p.knownGates(ctx, path); err != nil {
					return
				}
			}
			mu.Lock()
			facts[path] = f
			mu.Unlock()
		}()
	}
	wg.Wait()
	data, err := json.MarshalIndent(facts, "", "  ")
	if err != nil {
		return fmt.Errorf("local: encoding the binaries' facts: %w", err)
	}
	if err := os.MkdirAll(p.opts.OutDir, 0o755); err != nil {
		return fmt.Errorf("local: %w", err)
	}
	if err := os.WriteFile(filepath.Join(p.opts.OutDir, binaryFactsFile), data, 0o644); err != nil {
		return fmt.Errorf("local: recording the binaries' facts: %w", err)
	}
	return nil
}

// allReleased marks every component released, where the provider has
// released binaries.
func (p *Provider) allReleased() map[cluster.Component]bool {
	if p.opts.ReleasedBinDir == "" {
		return nil
	}
	out := map[cluster.Component]bool{Etcd: true}
	for _, comp := range cluster.Components {
		out[comp] = true
	}
	return out
}

// loadBinaryFacts takes what another process of the run recorded, for the
// binaries that are still the same file (size and modification time); a
// missing or unreadable record only means asking the binaries again.
func (p *Provider) loadBinaryFacts() {
	if p.opts.OutDir == "" {
		return
	}
	data, err := os.ReadFile(filepath.Join(p.opts.OutDir, binaryFactsFile))
	if err != nil {
		return
	}
	var facts map[string]binaryFact
	if json.Unmarshal(data, &facts) != nil {
		return
	}
	for path, f := range facts {
		fi, err := os.Stat(path)
		if err != nil || fi.Size() != f.Size || !fi.ModTime().Equal(f.ModTime) {
			continue
		}
		if _, ok := p.versionCache[path]; !ok && f.Version != "" {
			p.versionCache[path] = f.Version
		}
		if f.Gates != nil {
			p.gateCache[path] = f.Gates
		}
	}
}

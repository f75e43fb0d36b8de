package k8sbuild

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/internal/bintrust"
)

// Cache is one key's folder of binaries: <KeyDir>/bin holds Names once
// filled, <KeyDir>/.lock serialises the processes that fill it,
// <KeyDir>/recipe says how they were made, and <KeyDir>/bin.sha256
// (bintrust.ManifestPath) their digests once made. What runs them checks
// each against that digest first (bintrust.Checker.Check): a folder is
// reused because it is there, and anyone who can write it could have put
// anything there since.
type Cache struct {
	KeyDir string
	Names  []string
	// Recipe (see Recipe) is how the binaries must have been made: when
	// <KeyDir>/recipe says otherwise (or nothing: an older cache), every
	// binary counts as missing. Empty: any will do.
	Recipe string
	// Who prefixes progress lines ("local", "prototype").
	Who string
	Log io.Writer
}

// BinDir is where the cache's binaries live.
func (c Cache) BinDir() string { return filepath.Join(c.KeyDir, "bin") }

// Missing are the cache's binaries not yet in BinDir, or all of them when
// they were made by another recipe.
func (c Cache) Missing() []string {
	if c.otherRecipe() {
		return c.Names
	}
	return Missing(c.BinDir(), c.Names)
}

// otherRecipe says whether BinDir's binaries were made by a recipe other
// than c.Recipe (or by none recorded).
func (c Cache) otherRecipe() bool {
	if c.Recipe == "" {
		return false
	}
	made, _ := os.ReadFile(c.recipeFile())
	return string(made) != c.Recipe
}

func (c Cache) recipeFile() string { return filepath.Join(c.KeyDir, "recipe") }

// Ensure returns BinDir once every binary is there. When some are missing
// it takes the lock and calls fill with a scratch folder that fill must
// leave holding every name; the files are then renamed into BinDir, so a
// reader that does not take the lock never sees a half-written binary,
// and their digests recorded. built says whether fill ran.
//
// A folder with every binary is reused only with its digests recorded
// (and, for root, only root able to change it): a folder of a cache made
// before draconform recorded digests is refused with the command that
// records them, rather than trusted or built again unasked (a Kubernetes
// build takes 10-17 min).
func (c Cache) Ensure(ctx context.Context, fill func(ctx context.Context, scratch string, missing []string) error) (binDir string, built bool, err error) {
	log := NewSyncWriter(c.Log)
	binDir = c.BinDir()
	if len(c.Missing()) == 0 {
		return binDir, false, c.reused()
	}
	if err := os.MkdirAll(c.KeyDir, 0o755); err != nil {
		return "", false, fmt.Errorf("%s: creating binary cache %s: %w", c.Who, c.KeyDir, err)
	}
	unlock, err := Lock(ctx, filepath.Join(c.KeyDir, ".lock"), log, c.Who)
	if err != nil {
		return "", false, err
	}
	defer unlock()
	missing := c.Missing()
	if len(missing) == 0 { // another process built while we waited
		return binDir, false, c.reused()
	}
	otherRecipe := c.otherRecipe()
	scratch, err := os.MkdirTemp(c.KeyDir, "bin.tmp-")
	if err != nil {
		return "", false, fmt.Errorf("%s: creating build dir: %w", c.Who, err)
	}
	defer os.RemoveAll(scratch)
	if err := fill(ctx, scratch, missing); err != nil {
		return "", false, err
	}
	if left := Missing(scratch, c.Names); len(left) > 0 {
		return "", false, fmt.Errorf("%s: the build finished but %s are missing", c.Who, strings.Join(left, ", "))
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", false, fmt.Errorf("%s: creating %s: %w", c.Who, binDir, err)
	}
	for _, name := range c.Names {
		if err := os.Rename(filepath.Join(scratch, name), filepath.Join(binDir, name)); err != nil {
			return "", false, fmt.Errorf("%s: installing %s into %s: %w", c.Who, name, binDir, err)
		}
	}
	if otherRecipe {
		// The folder's other binaries (crictl, which only the kind node
		// image's build names) were made by the recipe the file no longer
		// names: gone, they are built again by the next build that needs
		// them, instead of passing for this recipe's.
		if err := removeAllBut(binDir, c.Names); err != nil {
			return "", false, fmt.Errorf("%s: %w", c.Who, err)
		}
	}
	if err := bintrust.Record(binDir, c.Names); err != nil {
		return "", false, fmt.Errorf("%s: %w", c.Who, err)
	}
	if c.Recipe != "" {
		if err := os.WriteFile(c.recipeFile(), []byte(c.Recipe), 0o644); err != nil {
			return "", false, fmt.Errorf("%s: recording how %s was built: %w", c.Who, binDir, err)
		}
	}
	return binDir, true, nil
}

// reused checks a folder about to be reused (bintrust.Checker.Recorded).
func (c Cache) reused() error {
	if err := bintrust.Recorded(c.BinDir(), c.Names); err != nil {
		return fmt.Errorf("%s: %w", c.Who, err)
	}
	return nil
}

// removeAllBut removes the files of dir not named in keep.
func removeAllBut(dir string, keep []string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("listing %s: %w", dir, err)
	}
	for _, e := range entries {
		if !slices.Contains(keep, e.Name()) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("removing %s, made by another recipe: %w", e.Name(), err)
			}
		}
	}
	return nil
}

// Missing are the names in dir that are not a non-empty executable file.
func Missing(dir string, names []string) []string {
	var out []string
	for _, n := range names {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 || fi.Size() == 0 {
			out = append(out, n)
		}
	}
	return out
}

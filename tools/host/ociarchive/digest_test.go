package ociarchive

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func writeTestImage(t *testing.T, ref string) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	if err := os.WriteFile(bin, []byte("#!binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "img.tar")
	if err := Write(archive, Image{Ref: ref, Files: map[string]string{"/prog": bin}, Cmd: []string{"/prog", "serve"}, User: "65532"}); err != nil {
		t.Fatal(err)
	}
	return archive
}

// The digest is that of the manifest containerd's importer writes
// (core/images/archive.ImportIndex in containerd v2.4.2): this one is
// spelt out here from the config and layer the archive holds, in the
// importer's field order, not made by the code under test.
func TestManifestDigestIsTheImportersManifest(t *testing.T) {
	archive := writeTestImage(t, "draconform.dev/thing:dev")
	img, err := tarball.ImageFromPath(archive, nil)
	if err != nil {
		t.Fatal(err)
	}
	config, _ := img.ConfigName()
	rawConfig, _ := img.RawConfigFile()
	layers, _ := img.Layers()
	layerDigest, _ := layers[0].Digest()
	layerSize, _ := layers[0].Size()
	manifest := fmt.Sprintf(`{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",`+
		`"config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"%s","size":%d},`+
		`"layers":[{"mediaType":"application/vnd.docker.image.rootfs.diff.tar.gzip","digest":"%s","size":%d}]}`,
		config, len(rawConfig), layerDigest, layerSize)
	sum := sha256.Sum256([]byte(manifest))
	want := "sha256:" + hex.EncodeToString(sum[:])
	got, err := ManifestDigest(archive)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("ManifestDigest = %s, want %s, the digest of\n%s", got, want, manifest)
	}
	if own, _ := img.Digest(); own.String() == got {
		t.Errorf("the digest is go-containerregistry's own manifest's (%s): a node does not hold the image under it", own)
	}
	cfg, _ := img.ConfigFile()
	if !slices.Equal(cfg.Config.Cmd, []string{"/prog", "serve"}) || cfg.Config.User != "65532" || len(cfg.Config.Entrypoint) != 0 {
		t.Errorf("config: cmd %v, user %q, entrypoint %v", cfg.Config.Cmd, cfg.Config.User, cfg.Config.Entrypoint)
	}
}

func TestNameByDigestAddsTheDigestName(t *testing.T) {
	archive := writeTestImage(t, "draconform.dev/thing:dev")
	written, err := os.Stat(archive)
	if err != nil {
		t.Fatal(err)
	}
	digest, err := ManifestDigest(archive)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := NameByDigest(archive)
	if err != nil {
		t.Fatal(err)
	}
	if want := "draconform.dev/thing@" + digest; ref != want {
		t.Errorf("NameByDigest = %s, want %s", ref, want)
	}
	if again, err := NameByDigest(archive); err != nil || again != ref {
		t.Errorf("a second NameByDigest: %s, %v", again, err)
	}
	entries, _, _, err := readArchive(archive)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"draconform.dev/thing:dev", ref}; len(entries) != 1 || !slices.Equal(entries[0].RepoTags, want) {
		data, _ := json.Marshal(entries)
		t.Errorf("manifest.json %s, want RepoTags %v", data, want)
	}
	if after, _ := ManifestDigest(archive); after != digest {
		t.Errorf("the digest moved from %s to %s", digest, after)
	}
	tag, _ := name.NewTag("draconform.dev/thing:dev")
	if _, err := tarball.ImageFromPath(archive, &tag); err != nil {
		t.Errorf("the archive no longer loads by its tag: %v", err)
	}
	if fi, err := os.Stat(archive); err != nil || fi.Mode() != written.Mode() {
		t.Errorf("the archive's mode: %v %v, want %v as Write left it", fi.Mode(), err, written.Mode())
	}
	left, _ := filepath.Glob(archive + ".tmp-*")
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestManifestDigestRefusesOtherArchives(t *testing.T) {
	dir := t.TempDir()
	notTar := filepath.Join(dir, "x.tar")
	if err := os.WriteFile(notTar, []byte(strings.Repeat("x", 1024)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ManifestDigest(notTar); err == nil {
		t.Error("a file that is no archive has a digest")
	}
	if _, err := ManifestDigest(filepath.Join(dir, "missing.tar")); err == nil {
		t.Error("a missing file has a digest")
	}
}

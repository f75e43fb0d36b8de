package ociarchive

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func TestWriteReadsBackAsTheImage(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	if err := os.WriteFile(bin, []byte("#!binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "img.tar")
	err := Write(archive, Image{Ref: "draconform.dev/thing:dev", Files: map[string]string{"/usr/bin/prog": bin}, Entrypoint: []string{"/usr/bin/prog"}})
	if err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag("draconform.dev/thing:dev")
	img, err := tarball.ImageFromPath(archive, &tag)
	if err != nil {
		t.Fatalf("the archive does not load as draconform.dev/thing:dev: %v", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Config.Entrypoint, []string{"/usr/bin/prog"}) || cfg.OS != "linux" || cfg.Architecture == "" {
		t.Errorf("config: entrypoint %v, os %q, arch %q", cfg.Config.Entrypoint, cfg.OS, cfg.Architecture)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		if hdr.Name == "usr/bin/prog" {
			data, _ := io.ReadAll(tr)
			if string(data) != "#!binary" || hdr.Mode != 0o755 {
				t.Errorf("usr/bin/prog: %q mode %o", data, hdr.Mode)
			}
		}
	}
	if want := []string{"usr/", "usr/bin/", "usr/bin/prog"}; !slices.Equal(names, want) {
		t.Errorf("layer entries %v, want %v", names, want)
	}
}

func TestSameFilesSameDigest(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	if err := os.WriteFile(bin, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	digest := func(out string) string {
		if err := Write(out, Image{Ref: "a.test/bb:c", Files: map[string]string{"/prog": bin}, Entrypoint: []string{"/prog"}}); err != nil {
			t.Fatal(err)
		}
		img, err := tarball.ImageFromPath(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d.String()
	}
	if a, b := digest(filepath.Join(dir, "1.tar")), digest(filepath.Join(dir, "2.tar")); a != b {
		t.Errorf("two builds of the same files differ: %s, %s", a, b)
	}
}

func TestWriteRejects(t *testing.T) {
	dir := t.TempDir()
	for name, img := range map[string]Image{
		"no files":      {Ref: "a.test/bb:c"},
		"relative path": {Ref: "a.test/bb:c", Files: map[string]string{"prog": "/bin/true"}},
		"bad ref":       {Ref: "UPPER/case:x", Files: map[string]string{"/prog": "/bin/true"}},
		"missing file":  {Ref: "a.test/bb:c", Files: map[string]string{"/prog": filepath.Join(dir, "nope")}},
	} {
		if err := Write(filepath.Join(dir, "x.tar"), img); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

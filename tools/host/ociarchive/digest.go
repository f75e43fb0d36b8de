package ociarchive

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// The manifest containerd writes when it imports an archive in docker
// save's layout, as Write makes (containerd v2, core/images/archive
// ImportIndex): the archive holds no manifest of its own, so the
// importer makes one from the config and layers, and a node names the
// image by that one's digest. These are its fields, in its order, as
// encoding/json writes them; go-containerregistry's manifest of the same
// image (size before digest) has another digest.
type importedManifest struct {
	SchemaVersion int            `json:"schemaVersion"`
	MediaType     string         `json:"mediaType"`
	Config        importedBlob   `json:"config"`
	Layers        []importedBlob `json:"layers"`
}

type importedBlob struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// The media types the importer gives: a layer is gzip's whenever it is
// compressed at all, as its own check says.
const (
	mediaManifest  = "application/vnd.docker.distribution.manifest.v2+json"
	mediaConfig    = "application/vnd.docker.container.image.v1+json"
	mediaLayer     = "application/vnd.docker.image.rootfs.diff.tar"
	mediaLayerGzip = "application/vnd.docker.image.rootfs.diff.tar.gzip"
)

// saveEntry is one image of the archive's manifest.json.
type saveEntry struct {
	Config   string
	RepoTags []string
	Layers   []string
}

// archived is what the digest needs of one file of the archive.
type archived struct {
	digest     string
	size       int64
	compressed bool
}

// ManifestDigest is the digest ("sha256:...") under which a node's
// containerd holds the one image of the archive at path once it has
// imported it (ctr images import, kind load image-archive); a pod names
// the image by it as repository@digest.
//
// The importer looks for a compressed copy of an uncompressed layer
// already in its store and names that one instead; Write's layers are
// compressed, so the digest holds for its archives on any node.
func ManifestDigest(path string) (string, error) {
	entries, files, _, err := readArchive(path)
	if err != nil {
		return "", err
	}
	return manifestDigest(path, entries, files)
}

func manifestDigest(path string, entries []saveEntry, files map[string]archived) (string, error) {
	if len(entries) != 1 {
		return "", fmt.Errorf("%s holds %d images; one was expected", path, len(entries))
	}
	e := entries[0]
	config, ok := files[entryName(e.Config)]
	if !ok {
		return "", fmt.Errorf("%s: its config %q is not in it", path, e.Config)
	}
	m := importedManifest{SchemaVersion: 2, MediaType: mediaManifest,
		Config: importedBlob{MediaType: mediaConfig, Digest: config.digest, Size: config.size}, Layers: []importedBlob{}}
	for _, l := range e.Layers {
		f, ok := files[entryName(l)]
		if !ok {
			return "", fmt.Errorf("%s: its layer %q is not in it", path, l)
		}
		media := mediaLayer
		if f.compressed {
			media = mediaLayerGzip
		}
		m.Layers = append(m.Layers, importedBlob{MediaType: media, Digest: f.digest, Size: f.size})
	}
	data, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// entryName is an entry's name as the importer matches it.
func entryName(name string) string { return path.Clean(name) }

// readArchive reads the archive's manifest.json, the digest, size and
// compression of each of its other files, and manifest.json's own bytes.
func readArchive(p string) ([]saveEntry, map[string]archived, []byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading image archive: %w", err)
	}
	defer f.Close()
	var entries []saveEntry
	var manifest []byte
	files := map[string]archived{}
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("reading image archive %s: %w", p, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		name := entryName(hdr.Name)
		if name == "manifest.json" {
			if manifest, err = io.ReadAll(tr); err == nil {
				err = json.Unmarshal(manifest, &entries)
			}
			if err != nil {
				return nil, nil, nil, fmt.Errorf("reading %s's manifest.json: %w", p, err)
			}
			continue
		}
		if files[name], err = digestOf(tr); err != nil {
			return nil, nil, nil, fmt.Errorf("reading %s in %s: %w", name, p, err)
		}
	}
	if manifest == nil {
		return nil, nil, nil, fmt.Errorf("%s has no manifest.json: not an archive in docker save's layout", p)
	}
	return entries, files, manifest, nil
}

// digestOf reads r to its end.
func digestOf(r io.Reader) (archived, error) {
	h := sha256.New()
	var head bytes.Buffer
	n, err := io.Copy(io.MultiWriter(h, &limited{&head, 4}), r)
	if err != nil {
		return archived{}, err
	}
	return archived{digest: "sha256:" + hex.EncodeToString(h.Sum(nil)), size: n, compressed: compressedMagic(head.Bytes())}, nil
}

// compressedMagic says whether a file begins as gzip or zstd does, the
// compressions the importer recognises.
func compressedMagic(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0x1f, 0x8b, 0x08}) || bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd})
}

// limited keeps the first n bytes written to it.
type limited struct {
	buf *bytes.Buffer
	n   int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// NameByDigest names the archive's image by digest as well as by its tag,
// repository@sha256:<ManifestDigest>, and returns that name. containerd
// names an imported image only as its archive says (CRI names it by
// digest only when it pulls it), so without this a pod that names the
// image by digest finds nothing on a node that imported it and asks a
// registry. The digest is not changed by it: the importer's manifest
// holds no names. docker load without the containerd image store
// refuses such an archive (it takes tags alone).
func NameByDigest(p string) (string, error) {
	entries, files, _, err := readArchive(p)
	if err != nil {
		return "", err
	}
	digest, err := manifestDigest(p, entries, files)
	if err != nil {
		return "", err
	}
	if len(entries[0].RepoTags) == 0 {
		return "", fmt.Errorf("%s names its image by no tag", p)
	}
	ref, err := AtDigest(entries[0].RepoTags[0], digest)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	if slices.Contains(entries[0].RepoTags, ref) {
		return ref, nil
	}
	entries[0].RepoTags = append(entries[0].RepoTags, ref)
	manifest, err := json.Marshal(entries)
	if err != nil {
		return "", err
	}
	return ref, replaceManifest(p, manifest)
}

// AtDigest is the reference to tagged's repository at digest:
// repository@sha256:....
func AtDigest(tagged, digest string) (string, error) {
	tag, err := name.NewTag(tagged)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(tagged, ":"+tag.TagStr()) + "@" + digest, nil
}

// replaceManifest writes the archive again with manifest as its
// manifest.json, every other entry as it was, and puts it in place of the
// old one at once.
func replaceManifest(p string, manifest []byte) error {
	in, err := os.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.CreateTemp(filepath.Dir(p), filepath.Base(p)+".tmp-")
	if err == nil {
		// CreateTemp's 0600, else: kind load and ctr read it as any user.
		err = out.Chmod(fi.Mode().Perm())
	}
	if err != nil {
		return fmt.Errorf("naming %s by digest: %w", p, err)
	}
	defer os.Remove(out.Name())
	if err := copyEntries(tar.NewReader(in), tar.NewWriter(out), manifest); err != nil {
		out.Close()
		return fmt.Errorf("naming %s by digest: %w", p, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("naming %s by digest: %w", p, err)
	}
	return os.Rename(out.Name(), p)
}

func copyEntries(tr *tar.Reader, tw *tar.Writer, manifest []byte) error {
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return tw.Close()
		}
		if err != nil {
			return err
		}
		var body io.Reader = tr
		if hdr.Typeflag == tar.TypeReg && entryName(hdr.Name) == "manifest.json" {
			hdr.Size, body = int64(len(manifest)), bytes.NewReader(manifest)
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := io.Copy(tw, body); err != nil {
			return err
		}
	}
}

package usecase

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/cluster/testdriver"
	"github.com/draconform/draconform/tools/host/ociarchive"
)

// Each image has the name its users look for: Sonobuoy's ours at the
// pinned version (not the project's sonobuoy/sonobuoy), the workload the
// one the example driver's profile runs, draconform's as today.
func TestEachImageHasItsName(t *testing.T) {
	root := repoRoot(t)
	for of, want := range map[string]string{
		ImageSonobuoy:   "draconform.dev/sonobuoy:v0.57.3",
		ImageWorkload:   "draconform.dev/testdriver:dev",
		ImageDraconform: ImageRef("devel"),
		"":              ImageRef("devel"),
	} {
		if got, err := DefaultImageRef(root, of, "devel"); err != nil || got != want {
			t.Errorf("%q: %s, %v; want %s", of, got, err, want)
		}
	}
	profile, err := os.ReadFile(filepath.Join(root, "suites", "profiles", "dra-example-driver.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(profile), "image: "+testdriver.Image+"\n") {
		t.Errorf("the example driver's profile no longer runs %s: the workload image would load a name no pod asks for", testdriver.Image)
	}
}

func TestAnUnknownImageIsRefused(t *testing.T) {
	for _, r := range []ImageRequest{{Of: "sonobuoi"}, {Of: ImageWorkload, Ref: "draconform.dev/other:1"}} {
		_, err := Image(context.Background(), r, Streams{})
		var ref *Refusal
		if !errors.As(err, &ref) {
			t.Errorf("%+v: %v, want a refusal", r, err)
		}
	}
	_, err := Image(context.Background(), ImageRequest{Of: "sonobuoi"}, Streams{})
	if err == nil || !strings.Contains(err.Error(), "did you mean sonobuoy") || !strings.Contains(err.Error(), "draconform, sonobuoy, workload") {
		t.Errorf("--of sonobuoi: %v", err)
	}
}

// Sonobuoy's own manifests run /sonobuoy by that path: the aggregator
// (pkg/client/gen.go), the workers (pkg/plugin/driver), retrieve's
// sonobuoy splat. The default command is its Dockerfile's.
func TestTheSonobuoyImageIsLaidOutAsSonobuoysOwn(t *testing.T) {
	img := sonobuoyImage("draconform.dev/sonobuoy:v0.57.3", "/cache/bin/sonobuoy")
	if len(img.Files) != 1 || img.Files["/sonobuoy"] != "/cache/bin/sonobuoy" {
		t.Errorf("files %v, want the binary at /sonobuoy", img.Files)
	}
	if len(img.Entrypoint) != 0 || !slices.Equal(img.Cmd, []string{"/sonobuoy", "aggregator", "--no-exit", "-v", "3", "--logtostderr"}) || img.User != "65532" {
		t.Errorf("entrypoint %v, cmd %v, user %q", img.Entrypoint, img.Cmd, img.User)
	}
}

// The digest reference is the tag's repository at the digest a node
// holds the archive under, a registry's port kept.
func TestDigestRefIsTheRepositoryAtTheNodesDigest(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	if err := os.WriteFile(bin, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"draconform.dev/sonobuoy:v0.57.3", "localhost:5000/tools/thing:1"} {
		archive := filepath.Join(dir, "a.tar")
		if err := ociarchive.Write(archive, ociarchive.Image{Ref: ref, Files: map[string]string{"/prog": bin}}); err != nil {
			t.Fatal(err)
		}
		digest, err := ociarchive.ManifestDigest(archive)
		if err != nil {
			t.Fatal(err)
		}
		want := ref[:strings.LastIndex(ref, ":")] + "@" + digest
		if got, err := digestRef(archive, ref); err != nil || got != want {
			t.Errorf("%s: %s, %v; want %s", ref, got, err, want)
		}
		if got, err := ociarchive.NameByDigest(archive); err != nil || got != want {
			t.Errorf("%s named by digest: %s, %v; want %s", ref, got, err, want)
		}
	}
}

package testdriver

import (
	"context"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/draconform/draconform/drivers/deploy"
	"github.com/draconform/draconform/tools/build/k8sbuild"
)

func TestImageIsTheManifestsImage(t *testing.T) {
	if Image != deploy.DefaultImage {
		t.Errorf("Image %q, but the driver's manifests run %q", Image, deploy.DefaultImage)
	}
}

func TestBuildImageWritesAnArchiveOfTheDriver(t *testing.T) {
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	archive, _, err := BuildImage(context.Background(), root, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	tag, err := name.NewTag(Image)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(archive, &tag)
	if err != nil {
		t.Fatalf("archive %s has no image %s: %v", archive, Image, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Config.Entrypoint; len(got) != 1 || got[0] != "/draconform-driver" {
		t.Errorf("entrypoint %q", got)
	}
}

package sonobuoy

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	corev1 "k8s.io/api/core/v1"
)

// Repository is where draconform's released images are published, as
// draconform image names them.
const Repository = "draconform.dev/draconform"

// Image is the image the plugin's container runs, and when the kubelet
// pulls it.
type Image struct {
	Ref        string
	PullPolicy corev1.PullPolicy
}

// release is a released version of draconform, as a release build is
// linked with (-X .../tools/cli.version=v0.3.0); git describe's versions
// between releases (v0.3.0-5-gabc1234, -dirty) and "devel" are not.
var release = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// PinImage says which image a plugin definition names: ref, or for a
// released build of draconform ("" ref) the image of its version. A tag
// can be moved to another image, so the kubelet is told to pull a tagged
// image each time (Always), rather than run whatever a node holds under
// that name (IfNotPresent: a stale build, or one someone with access to
// the node loaded); a digest names one image for good, which a node that
// holds it may run without asking a registry, as it must on kind, where
// the image is loaded and no registry serves it. The moving names, dev
// (every draconform image writes it) and latest, are refused.
func PinImage(ref, version string) (Image, error) {
	if ref == "" {
		if !release.MatchString(version) {
			return Image{}, fmt.Errorf("this draconform is not a release (version %s): no published image carries its version, and draconform.dev/draconform:dev names whichever build was loaded last; "+
				"load or push the image draconform image writes, and name it by digest: --image %s@sha256:<digest> (crane digest <ref> for a registry, or crictl images --digests on a node)", version, Repository)
		}
		return Image{Ref: Repository + ":" + version, PullPolicy: corev1.PullAlways}, nil
	}
	parsed, err := name.ParseReference(ref)
	if err != nil {
		return Image{}, fmt.Errorf("--image %s: name an image by tag (repository:tag) or digest (repository@sha256:...): %w", ref, err)
	}
	if _, ok := parsed.(name.Digest); ok {
		return Image{Ref: ref, PullPolicy: corev1.PullIfNotPresent}, nil
	}
	tag := parsed.Identifier()
	// A name without a tag means latest.
	if last := ref[strings.LastIndex(ref, "/")+1:]; !strings.Contains(last, ":") || tag == "dev" || tag == "latest" {
		return Image{}, fmt.Errorf("--image %s: the tag %s moves to each new build, so the plugin could run another draconform than the one meant; name the image by digest (%s@sha256:<digest>) or by a release's tag", ref, tag, parsed.Context().Name())
	}
	return Image{Ref: ref, PullPolicy: corev1.PullAlways}, nil
}

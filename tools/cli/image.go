package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/host/ociarchive"
)

// imageCmd writes draconform's own container image as an OCI archive,
// without Docker: the static binary (suites and fixtures are embedded in
// it) on an empty base, for in-cluster runs (Sonobuoy, a Job).
func imageCmd(fs *pflag.FlagSet) action {
	out := fs.String("out", "_output/draconform-image.tar", "where to write the OCI archive (load it with ctr images import, docker load, or push it with crane)")
	ref := fs.String("ref", "draconform.dev/draconform:dev", "the image's name")
	return func(ctx context.Context, _ []string, s Streams) int {
		root, err := k8sbuild.FindRepoRoot()
		if err != nil {
			fmt.Fprintln(s.Err, "draconform image:", err)
			return 1
		}
		tmp, err := os.MkdirTemp("", "draconform-image-")
		if err != nil {
			fmt.Fprintln(s.Err, "draconform image:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		// Static (k8sbuild.CompileEnv), so that it runs on an empty base.
		err = k8sbuild.GoBuild{ModuleDir: root,
			Packages: []string{"./tools/cmd/draconform"}, OutDir: tmp, Who: "image", Quiet: true, Log: s.Out}.Run(ctx)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform image:", err)
			return 1
		}
		path, err := filepath.Abs(*out)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o755)
		}
		if err == nil {
			err = ociarchive.Write(path, ociarchive.Image{Ref: *ref, Files: map[string]string{"/draconform": filepath.Join(tmp, "draconform")},
				Entrypoint: []string{"/draconform"}})
		}
		if err != nil {
			fmt.Fprintln(s.Err, "draconform image:", err)
			return 1
		}
		fmt.Fprintf(s.Out, "%s: image %s\n", path, *ref)
		return 0
	}
}

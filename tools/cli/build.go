package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// binariesCmd builds (or finds in the cache) what the embedded providers
// run, so a long cold build can happen before, and apart from, a run.
func binariesCmd(fs *pflag.FlagSet) action {
	var prov usecase.Providers
	registerProviders(fs, &prov)
	return func(ctx context.Context, args []string, s Streams) int {
		return exit(s, "draconform:", usecase.Binaries(ctx, prov, s.uc()))
	}
}

// nodeImageCmd prints on stdout the kind node image the gate matrix runs,
// so that `--kind-image "$(draconform node-image)"` works; progress goes to
// stderr.
func nodeImageCmd(fs *pflag.FlagSet) action {
	var r usecase.NodeImageRequest
	fs.BoolVar(&r.Rebuild, "rebuild", false, "build again even if an image of the same inputs exists")
	fs.StringVar(&r.Mirror, "mirror", "", "Debian mirror for debootstrap (default debootstrap's)")
	fs.BoolVar(&r.Offline, "offline", false, "build draconform's own node image even where kind's published one is served")
	fs.StringVar(&r.Published, "published-image", usecase.PublishedNodeImage, "kind's published node image, used where its registry serves it")
	fs.BoolVar(&r.KEP, "kep", false, "build the image with KEP-6406's kube-apiserver and kube-scheduler (the prototype, statically linked) in its control plane, tagged also "+usecase.KEPNodeImage+", the image kind-configs/*-kep.yaml name; always built, since no published image has KEP-6406")
	return func(ctx context.Context, args []string, s Streams) int {
		tag, err := usecase.NodeImage(ctx, r, s.uc())
		if err != nil {
			return exit(s, "draconform node-image:", err)
		}
		fmt.Fprintln(s.Out, tag)
		return 0
	}
}

// clisCmd prints on stdout the folders of the command-line tools it built
// (or found in the cache), for PATH="$(draconform clis kind helm):$PATH";
// progress goes to stderr.
func clisCmd(fs *pflag.FlagSet) action {
	return func(ctx context.Context, args []string, s Streams) int {
		path, err := usecase.CLIs(ctx, usecase.CLIRequest{Names: args}, s.uc())
		if err != nil {
			return exit(s, "draconform clis:", err)
		}
		fmt.Fprintln(s.Out, path)
		return 0
	}
}

// imageCmd writes one of the images in-cluster runs need as an image
// archive, without Docker: draconform's own, Sonobuoy's, or the example
// driver profile's workload.
func imageCmd(fs *pflag.FlagSet) action {
	var r usecase.ImageRequest
	var print string
	fs.StringVar(&r.Of, "of", usecase.ImageDraconform, "which image: "+usecase.ImageDraconform+" (draconform's own), "+
		usecase.ImageSonobuoy+" (Sonobuoy's aggregator and worker image, "+usecase.SonobuoyImageRepository+":<version>, from the sonobuoy draconform clis builds) or "+
		usecase.ImageWorkload+" (the image the example driver's profile runs its pods from)")
	fs.StringVar(&r.Out, "out", "", "where to write the archive (default _output/<of>-image.tar); load it with kind load image-archive or ctr images import, or push it with crane")
	fs.StringVar(&r.Ref, "ref", "", "the image's name; default for draconform: draconform.dev/draconform:<version> for a release, the image sonobuoy-plugin names, and draconform.dev/draconform:dev otherwise")
	fs.BoolVar(&r.DigestName, "digest-name", true, "name the image by digest in the archive as well, so that a pod naming it repository@sha256:... runs it on a node that imported the archive (docker load without the containerd image store refuses such an archive: --digest-name=false for it)")
	fs.StringVar(&print, "print", "", "print only this on stdout: path (the archive's) or digest-ref (repository@sha256:..., for --image and pod specs); default both, with the tag")
	return func(ctx context.Context, _ []string, s Streams) int {
		if print != "" && print != "path" && print != "digest-ref" {
			return exit(s, "draconform image:", usecase.Refuse("--print %s: path or digest-ref", print))
		}
		r.Version = buildVersion().Version
		res, err := usecase.Image(ctx, r, s.uc())
		if err != nil {
			return exit(s, "draconform image:", err)
		}
		switch print {
		case "path":
			fmt.Fprintln(s.Out, res.Path)
		case "digest-ref":
			fmt.Fprintln(s.Out, res.DigestRef)
		default:
			fmt.Fprintf(s.Out, "%s: image %s\n%s\n", res.Path, res.Ref, res.DigestRef)
		}
		return 0
	}
}

// engineCmd manages the Docker engine kind's nodes run in
// (usecase.Engine).
func engineCmd(fs *pflag.FlagSet) action {
	var r usecase.EngineRequest
	fs.BoolVar(&r.Install, "install", false, "with up: install docker.io from Debian packages when no engine is installed (root)")
	fs.StringVar(&r.StateDir, "state-dir", "", "where draconform keeps its engine's runtime wrapper, log, pid and configuration (default "+usecase.DefaultEngineStateDir+")")
	return func(ctx context.Context, args []string, s Streams) int {
		if len(args) != 1 {
			fmt.Fprintln(s.Err, "usage: draconform engine up [--install] | install | down")
			return 2
		}
		r.Verb = args[0]
		err := usecase.Engine(ctx, r, s.uc())
		if sub, ok := err.(*usecase.SubcommandError); ok {
			fmt.Fprintf(s.Err, "draconform engine %s: %v\n", sub.Verb, sub.Err)
			return 1
		}
		return exit(s, "draconform engine:", err)
	}
}

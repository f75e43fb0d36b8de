// Command prototype builds the KEP-6406 prototype kube-apiserver and
// kube-scheduler from the v1.37.2 module sources plus the edits in
// tools/build/prototype/build.
//
//	go run ./tools/build/prototype build [-mutant NAME] [-static]
//	                                                build (or find) the binaries, print their dir;
//	                                                -static for kind (--kind-kep-bin-dir)
//	go run ./tools/build/prototype prepare [-mutant NAME] copy and patch the sources only
//	go run ./tools/build/prototype edits [-mutant NAME]   list the edits and the cache key
//	go run ./tools/build/prototype mutants                list the deliberately non-conformant variants
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/draconform/draconform/tools/build/prototype/build"
	"github.com/draconform/draconform/tools/internal/textline"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

func run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: prototype build|prepare|edits [-mutant NAME] [-static] [-cache-dir DIR] | mutants")
		return 2
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	mutant := fs.String("mutant", "", "build a deliberately non-conformant variant instead (see: prototype mutants)")
	cacheDir := fs.String("cache-dir", "", "binary cache (default: <repo>/.cache/k8s)")
	static := fs.Bool("static", false, "link kube-apiserver and kube-scheduler statically (CGO_ENABLED=0), as kind's distroless component images need")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	o := build.Options{CacheDir: *cacheDir, Mutant: *mutant, Static: *static, Log: os.Stderr}
	if *mutant != "" {
		if _, err := build.LookupMutant(*mutant); err != nil {
			fmt.Fprintln(os.Stderr, "prototype:", err)
			return 2
		}
	}
	switch args[0] {
	case "mutants":
		for _, m := range build.Mutants() {
			fmt.Printf("%-34s %s  %s\n", m.Name, build.Key(build.Options{Mutant: m.Name}), m.Mistake)
		}
	case "build":
		dir, err := build.Ensure(ctx, o)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(dir)
	case "prepare":
		dir, err := build.Prepare(ctx, o)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(dir)
	case "edits":
		fmt.Printf("key %s (%s)\n", build.Key(o), build.Version(o))
		for _, g := range build.EditSet(o) {
			fmt.Printf("%s:\n", g.Name)
			for _, e := range g.Edits {
				where := e.File
				if e.Within != "" {
					where += " in " + textline.Summary(e.Within, " ...")
				}
				fmt.Printf("  %-7s %s %s: %s\n", e.Mode, e.Module, where, textline.Summary(e.Anchor, " ..."))
			}
		}
	default:
		fmt.Fprintf(os.Stderr, "prototype: unknown command %q (build, prepare, edits or mutants)\n", args[0])
		return 2
	}
	return 0
}

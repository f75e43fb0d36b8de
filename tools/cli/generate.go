package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// docsCmd writes (or, with --check, verifies) the documents generated from
// the specs and the records, and checks the pages' links (usecase.Docs).
func docsCmd(fs *pflag.FlagSet) action {
	var r usecase.DocsRequest
	registerSpecs(fs, &r.Specs)
	fs.StringVar(&r.Dir, "out", "docs", "directory to write into")
	fs.BoolVar(&r.Check, "check", false, "fail if the files differ from what the specs give, write nothing")
	fs.StringVar(&r.Readme, "readme", "", "README whose sample matrix is generated from <out>/golden-outcomes.json (default <out>/../README.md)")
	fs.StringVar(&r.GoldenDoc, "golden-doc", "", "page whose golden summary is generated from <out>/golden-outcomes.json (default <out>/verdicts.md)")
	fs.StringVar(&r.MutDoc, "mutation-doc", "", "page whose mutation table is generated from <out>/mutation.json (default <out>/mutation.md)")
	return func(_ context.Context, args []string, s Streams) int {
		return exit(s, "draconform docs:", usecase.Docs(r, s.uc()))
	}
}

// kindConfigsCmd writes (or, with --check, verifies) one kind cluster
// config per gate cell (usecase.KindConfigs).
func kindConfigsCmd(fs *pflag.FlagSet) action {
	var r usecase.KindConfigsRequest
	registerSpecs(fs, &r.Specs)
	fs.StringVar(&r.Dir, "out", "kind-configs", "directory of the configs, one <cell>.yaml per gate cell")
	fs.BoolVar(&r.Check, "check", false, "write nothing; fail, naming each file, where the directory differs from what the cells give")
	fs.StringVar(&r.Image, "image", "", "node image of every node (default: kind v0.33.0's, "+usecase.DefaultKindImage+")")
	fs.StringVar(&r.KEPBinDir, "kep-bin-dir", "", "directory of statically linked KEP-6406 kube-apiserver and kube-scheduler to run in the control-plane node; their kubeadm patches go to <out>/patches")
	return func(_ context.Context, args []string, s Streams) int {
		return exit(s, "draconform kind-configs:", usecase.KindConfigs(r, s.uc()))
	}
}

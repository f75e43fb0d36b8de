package k8sbuild

import "strings"

// Every Go program draconform builds is compiled alike: draconform itself
// and its tests (the Makefile exports the same GOFLAGS and CGO_ENABLED),
// the Kubernetes binaries, the prototype, the node's runtime and tools. The
// build cache keys a compiled package by its flags and environment as well
// as its sources, so only then are the packages they share (k8s.io/api,
// apimachinery, client-go, grpc, protobuf: about 3.7 CPU-minutes here)
// compiled once on a cold machine instead of once per recipe. The module
// versions must agree too (TestSuiteCompilesTheKubernetesBuildsPackages).
//
// -trimpath keeps folders (the prototype's work dir, a clone's path) out of
// the packages' cache keys. -dwarf=false and -ldflags=-s -w leave out the
// debug information no one reads here; Kubernetes' release builds strip it
// as well (hack/lib/golang.sh: -trimpath, -s -w). Measured on 2 cores:
// client-go compiled in 165 CPU-s instead of 186 to 193 (-12 %),
// kube-apiserver linked in 8.7 CPU-s instead of 12.5 to 13.5. -c=1: go
// build already compiles a package per core, and each compile's own
// backend workers on top of that cost more than they give here: client-go
// in 152 and 170 CPU-s instead of 170 and 190, kube-apiserver from empty
// caches in 373 s (715 CPU-s) instead of 412 s (795). On many cores the
// few packages compiled alone at the end of a build take longer with it.
var CompileFlags = []string{"-trimpath", "-gcflags=all=-dwarf=false -c=1"}

// LinkFlags is the -ldflags value of a build that gives none of its own.
const LinkFlags = "-s -w"

// LinkWith is the -ldflags flag of a build with linker flags of its own (a
// version stamp, a mutant's -X): given alone they would replace LinkFlags.
func LinkWith(own string) string {
	return "-ldflags=" + strings.TrimSpace(LinkFlags+" "+own)
}

// CompileEnv builds without cgo, as Kubernetes releases kube-apiserver,
// kube-controller-manager and kube-scheduler (KUBE_STATIC_BINARIES); its
// kubelet, linked with cgo there, is static here too. A command that needs
// cgo (runc's nsenter) is built apart with CGO_ENABLED=1 (BuildOptions.Cgo).
const CompileEnv = "CGO_ENABLED=0"

// buildFlags are go build's flags before -o: ours, then the build's own, so
// that its -ldflags replaces ours.
func buildFlags(own []string) []string {
	return append(append(append([]string{}, CompileFlags...), LinkWith("")), own...)
}

// buildEnv is added to the environment: ours, then the build's own.
func buildEnv(own []string) []string {
	return append([]string{CompileEnv}, own...)
}

// Recipe names how a build with these flags and environment of its own
// makes its binaries; a cache holding binaries made otherwise rebuilds them.
func Recipe(flags, env []string) string {
	return strings.Join(append(buildEnv(env), buildFlags(flags)...), " ")
}

package kindconfig

import (
	"debug/elf"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
)

// elfMachine maps a GOARCH to the ELF machine a node of that architecture
// runs; kind nodes have the host's architecture.
var elfMachine = map[string]elf.Machine{
	"amd64": elf.EM_X86_64,
	"arm64": elf.EM_AARCH64,
}

// CheckKEPBinaries reports why the binaries of dir cannot run in the
// component images, before a cluster spends minutes failing to start: they
// must exist, be Linux ELF for the node's architecture, and be statically
// linked, since kube-apiserver and kube-scheduler images are distroless and
// have no dynamic loader or libc (build with CGO_ENABLED=0).
func CheckKEPBinaries(dir string) error {
	var errs []error
	for _, comp := range KEPBinaries {
		if err := checkStaticBinary(filepath.Join(dir, comp), runtime.GOARCH); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func checkStaticBinary(path, goarch string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("KEP binary %s: %w", path, err)
	}
	defer f.Close()
	if want, ok := elfMachine[goarch]; ok && f.Machine != want {
		return fmt.Errorf("KEP binary %s is built for %s, the nodes run %s", path, f.Machine, want)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("KEP binary %s is dynamically linked, and the distroless component image has no loader for it: rebuild it with CGO_ENABLED=0 (the prototype: go run ./tools/build/prototype build -static)", path)
		}
	}
	return nil
}

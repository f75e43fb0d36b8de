// Command etcd is the etcd server the embedded control plane runs. etcd's own
// main module carries replace directives and cannot be built with `go build
// module@version`, so this wrapper links the server package at the version
// Kubernetes names in its go.mod.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}

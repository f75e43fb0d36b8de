// Command gen writes the default driver manifests (deploy.DefaultManifest).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/draconform/draconform/drivers/deploy"
)

func main() {
	out := flag.String("o", "drivers/deploy/testdriver.yaml", "file to write")
	flag.Parse()
	data, err := deploy.DefaultManifest()
	if err == nil {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

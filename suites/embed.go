// Package suites holds draconform's cases and gate cells as YAML.
package suites

import "embed"

// FS holds every suite file, so the draconform binary carries them.
//
//go:embed *.yaml
var FS embed.FS

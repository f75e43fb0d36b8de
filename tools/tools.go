//go:build tools

// Package tools pins the ginkgo CLI, so `go run github.com/onsi/ginkgo/v2/ginkgo -p`
// works from go.mod's versions without a separate install.
package tools

import _ "github.com/onsi/ginkgo/v2/ginkgo"

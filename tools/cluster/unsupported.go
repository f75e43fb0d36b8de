package cluster

import (
	"fmt"
	"strings"
)

// The errors of a provider's methods that Info says it cannot honour, in
// the words every provider shares.

// NoMixedCells is StartMixed's error where a provider cannot run released
// components beside its own.
func NoMixedCells(provider string, released []Component) error {
	names := make([]string, len(released))
	for i, c := range released {
		names[i] = string(c)
	}
	return fmt.Errorf("%s cannot run %s from released Kubernetes binaries beside its own: %w", provider, strings.Join(names, ", "), ErrUnsupported)
}

// Unsupported is the error of a method a provider does not offer: what
// it would have done, and why not.
func Unsupported(provider, what string) error {
	return fmt.Errorf("%s cannot %s: %w", provider, what, ErrUnsupported)
}

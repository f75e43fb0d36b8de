package runner

import "crypto/rand"

// NewRunID returns 5 random lower-case letters and digits: short enough to
// keep derived names within Kubernetes' 63-character limits, random enough
// that two runs on one cluster never share a name.
func NewRunID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

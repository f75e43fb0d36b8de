// Package profiles holds the driver profiles draconform ships: the one of
// its own test driver, which the driver-profile cases use unless
// --driver-profile names a vendor's.
package profiles

import "embed"

// FS holds the profiles.
//
//go:embed *.yaml
var FS embed.FS

// TestDriver is the file of the test driver's profile.
const TestDriver = "testdriver.yaml"

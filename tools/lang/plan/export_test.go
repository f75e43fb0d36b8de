package plan

// Canonical exposes canonical to the tests.
var Canonical = canonical

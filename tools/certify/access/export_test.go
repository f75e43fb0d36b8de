package access

// Confinement is confinement, for the tests.
var Confinement = confinement

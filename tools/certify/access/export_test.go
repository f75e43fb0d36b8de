package access

// Confinement is confinement, for the tests.
var Confinement = confinement

// Confined is confined, for the tests.
var Confined = confined

// InstallOf is installOf, for the tests.
var InstallOf = installOf

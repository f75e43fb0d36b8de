package loader

// ProductOf reads a Product from data, as LoadProduct does from a file.
var ProductOf = productOf

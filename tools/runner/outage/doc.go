// Package outage holds the test of a run whose API server goes away in the
// middle of a case (outage_test.go); it has no code of its own. The test
// runs the suite through ginkgo, which runs one suite per process, so it
// lives in a package of its own.
package outage

// Package usecase is what draconform does, one use case a file: each takes
// a request and returns a result. It owns loading the specs, selecting the
// cases, building the providers, the preflight, the choice between shards
// and one process, and the certification policy, so that the command line
// maps flags to a request and a result to text and reaches no provider or
// runner.
package usecase

import (
	"errors"
	"fmt"
	"io"
)

// Streams are where a use case writes its progress, as a run's log, and
// what it refuses or why it failed, as the command line shows them.
type Streams struct {
	Out io.Writer
	Err io.Writer
}

// An Exit ends a use case other than in success: the exit code it means
// and, unless the use case said it already, why.
type Exit struct {
	Code int
	Err  error
}

func (e *Exit) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Exit) Unwrap() error { return e.Err }

// said is the end of a use case that printed why itself, by its exit
// code: nil for 0.
func said(code int) error {
	if code == 0 {
		return nil
	}
	return &Exit{Code: code}
}

// failed is an end with code that the caller still has to say.
func failed(code int, err error) error { return &Exit{Code: code, Err: err} }

// ExitCode is the exit code err means, and what is left to say of it ("" if
// the use case said it): a refusal exits 2, an error without a code 1.
func ExitCode(err error) (int, string) {
	var e *Exit
	var r *Refusal
	switch {
	case err == nil:
		return 0, ""
	case errors.As(err, &e):
		if e.Err == nil {
			return e.Code, ""
		}
		return e.Code, e.Err.Error()
	case errors.As(err, &r):
		return 2, r.Error()
	}
	return 1, err.Error()
}

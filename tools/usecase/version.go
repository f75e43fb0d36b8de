package usecase

import (
	"fmt"
	"github.com/draconform/draconform/steps"
	"runtime/debug"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
)

// Version is what draconform says it is: a report or bundle records it, so
// a reader can tell which build and which specs produced the result.
type Version struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	// Modified says the build came from a checkout with uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// SuiteDigest identifies the built-in suites and fixtures.
	SuiteDigest string `json:"suiteDigest"`
	GoVersion   string `json:"goVersion,omitempty"`
}

func (v Version) String() string {
	s := v.Version
	if v.Commit != "" {
		s += ", commit " + v.Commit
		if v.Modified {
			s += " (modified)"
		}
	}
	return s + ", suites " + v.SuiteDigest
}

// BuildVersion reads the version from the link-time value (linked, ""
// without one) and the build's own VCS stamp.
func BuildVersion(linked string) Version {
	v := Version{Version: linked, SuiteDigest: SuiteDigest()}
	info, ok := debug.ReadBuildInfo()
	if ok {
		v.GoVersion = info.GoVersion
		if v.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v.Version = info.Main.Version
		}
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				v.Commit = kv.Value
			case "vcs.modified":
				v.Modified = kv.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "devel"
	}
	return v
}

// builtInCaseDigests is what each case of the built-in suites runs, as
// plan.Digest says, by id.
func builtInCaseDigests() (map[string]string, error) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		return nil, fmt.Errorf("loading the built-in suites: %w", err)
	}
	return plan.Digests(b)
}

// SuiteDigest identifies the built-in suites and fixtures.
func SuiteDigest() string {
	d, err := loader.Digest(suites.FS, fixtures.FS)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return d
}

func suiteDigest() string { return SuiteDigest() }

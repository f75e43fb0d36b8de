package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// seccompSupport is the linux.seccomp of `runc features` (runtime-spec
// features.Seccomp): what the real runc can apply on this machine. A nil
// list means runc did not say, and nothing is dropped for it.
type seccompSupport struct {
	Enabled        *bool    `json:"enabled"`
	Actions        []string `json:"actions"`
	Operators      []string `json:"operators"`
	Archs          []string `json:"archs"`
	SupportedFlags []string `json:"supportedFlags"`
	libseccomp     string   // the version runc is linked with, if it says
}

// libseccompAnnotation is where `runc features` gives libseccomp's version.
const libseccompAnnotation = "io.github.seccomp.libseccomp.version"

// featuresOf asks the runc at path what seccomp it supports.
func featuresOf(runc string) func() (seccompSupport, error) {
	return func() (seccompSupport, error) {
		out, err := exec.Command(runc, "features").Output()
		if err != nil {
			return seccompSupport{}, fmt.Errorf("asking %s features what seccomp it supports: %w", runc, err)
		}
		return parseFeatures(out)
	}
}

// parseFeatures reads `runc features` output. A runc built without the
// seccomp tag gives no linux.seccomp at all (v1.5.3), which reads as not
// enabled.
func parseFeatures(out []byte) (seccompSupport, error) {
	var f struct {
		Linux struct {
			Seccomp *seccompSupport `json:"seccomp"`
		} `json:"linux"`
		Annotations map[string]string `json:"annotations"`
	}
	if err := json.Unmarshal(out, &f); err != nil {
		return seccompSupport{}, fmt.Errorf("reading runc features: %w", err)
	}
	var s seccompSupport
	if f.Linux.Seccomp != nil {
		s = *f.Linux.Seccomp
	}
	s.libseccomp = f.Annotations[libseccompAnnotation]
	return s, nil
}

// errNoSeccomp is the refusal of a container with a profile by a runc
// that cannot apply any: stripping the profile would run it unconfined
// while the pod asked for the runtime's default.
var errNoSeccomp = errors.New("the runc beside draconform-runc has no seccomp support (runc features: linux.seccomp is not enabled, a runc built without libseccomp), " +
	"so it cannot apply this container's seccomp profile, and draconform-runc does not run the container unconfined in its place: " +
	"build the node's runtime with libseccomp (apt-get install libseccomp-dev pkg-config, or make node-deps, then run again), " +
	"or give the pod no profile (securityContext.seccompProfile.type: Unconfined)")

// fitSeccomp keeps linux.seccomp of a config.json (at path) as the real
// runc can apply it, dropping and naming only what runc says it cannot.
func (w *wrapper) fitSeccomp(doc map[string]json.RawMessage, path string) (bool, error) {
	raw, ok := doc["linux"]
	if !ok || isNull(raw) {
		return false, nil
	}
	var linux map[string]json.RawMessage
	if err := json.Unmarshal(raw, &linux); err != nil {
		return false, fmt.Errorf("linux: %w", err)
	}
	profile, ok := linux["seccomp"]
	if !ok || isNull(profile) {
		return false, nil
	}
	support, err := w.seccomp()
	if err != nil {
		return false, err
	}
	fitted, dropped, err := fitProfile(profile, support)
	if err != nil {
		return false, fmt.Errorf("linux.seccomp: %w", err)
	}
	if len(dropped) == 0 {
		return false, nil
	}
	w.note(fmt.Sprintf("%s: dropped from the container's seccomp profile, as runc here refuses it: %s; the rest of the profile applies",
		path, strings.Join(dropped, "; ")))
	linux["seccomp"] = fitted
	out, err := marshal(linux)
	if err != nil {
		return false, err
	}
	doc["linux"] = out
	return true, nil
}

// fitProfile returns the profile without the filter flags and
// architectures runc cannot apply here, and what it left out. Those only:
// without a flag the filter is the same, and a left-out architecture's
// system calls are refused by the filter. An action or operator runc does
// not know would mean leaving out rules, which changes what the container
// may do, so the profile is refused instead. System call names libseccomp
// does not know need nothing here: runc skips them itself.
func fitProfile(raw json.RawMessage, s seccompSupport) (json.RawMessage, []string, error) {
	if s.Enabled == nil || !*s.Enabled {
		return nil, nil, errNoSeccomp
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, nil, err
	}
	if err := checkRules(raw, s); err != nil {
		return nil, nil, err
	}
	flagsWhy := "not supported by this kernel or libseccomp"
	if s.libseccomp != "" {
		flagsWhy = "not supported by this kernel or libseccomp " + s.libseccomp
	}
	var dropped []string
	for _, f := range []struct {
		field, what, why string
		known            []string
	}{
		{"flags", "filter flag", flagsWhy, s.SupportedFlags},
		{"architectures", "architecture", "not known to this runc", s.Archs},
	} {
		kept, gone, err := keepKnown(p[f.field], f.known)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.field, err)
		}
		if len(gone) > 0 {
			p[f.field] = kept
			dropped = append(dropped, fmt.Sprintf("%s %s (%s)", f.what, strings.Join(gone, ", "), f.why))
		}
	}
	if len(dropped) == 0 {
		return raw, nil, nil
	}
	out, err := marshal(p)
	return out, dropped, err
}

// keepKnown splits a list of names into those in known and the rest; a
// nil known (runc did not say) keeps them all.
func keepKnown(raw json.RawMessage, known []string) (json.RawMessage, []string, error) {
	if raw == nil || isNull(raw) || known == nil {
		return raw, nil, nil
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, nil, err
	}
	kept := []string{}
	var gone []string
	for _, n := range names {
		if slices.Contains(known, n) {
			kept = append(kept, n)
		} else {
			gone = append(gone, n)
		}
	}
	if len(gone) == 0 {
		return raw, nil, nil
	}
	out, err := marshal(kept)
	return out, gone, err
}

// checkRules refuses a profile with an action or operator runc does not
// know, naming it.
func checkRules(raw json.RawMessage, s seccompSupport) error {
	var p struct {
		DefaultAction string `json:"defaultAction"`
		Syscalls      []struct {
			Names  []string `json:"names"`
			Action string   `json:"action"`
			Args   []struct {
				Op string `json:"op"`
			} `json:"args"`
		} `json:"syscalls"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	unknown := func(what, name string, known []string, rule string) error {
		if name == "" || known == nil || slices.Contains(known, name) {
			return nil
		}
		return fmt.Errorf("the %s %s%s is not one this runc knows (it knows %s), and leaving the rule out would change what the container may do: draconform-runc does not run it",
			what, name, rule, strings.Join(known, ", "))
	}
	if err := unknown("default action", p.DefaultAction, s.Actions, ""); err != nil {
		return err
	}
	for _, sc := range p.Syscalls {
		rule := " (of the rule for " + strings.Join(sc.Names, ", ") + ")"
		if err := unknown("action", sc.Action, s.Actions, rule); err != nil {
			return err
		}
		for _, a := range sc.Args {
			if err := unknown("operator", a.Op, s.Operators, rule); err != nil {
				return err
			}
		}
	}
	return nil
}

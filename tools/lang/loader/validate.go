package loader

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/lang/spec"
)

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func validate(b *Bundle, probs *Problems) {
	for _, name := range b.CellOrder {
		validateCell(b.Cells[name], probs)
	}
	for _, f := range b.Fixtures {
		validateFixture(f, probs)
	}
	entries := validateRegister(b, probs)
	suiteNames := map[string]spec.Pos{}
	for _, s := range b.Suites {
		if prev, dup := suiteNames[s.Name]; dup {
			probs.add(s.Pos.File, s.Pos.Line, "", "suite %q is already defined at %s:%d", s.Name, prev.File, prev.Line)
		}
		suiteNames[s.Name] = s.Pos
		validateSuite(b, s, probs)
		for i := range s.Cases {
			c := &s.Cases[i]
			if c.Contested != "" && !entries[c.Contested] {
				probs.add(c.Pos.File, c.Pos.Line, closestKey(probs, c.Contested, entries)+" add it to suites/register.yaml", "case %s: contested: %s is not in the interpretation register", c.ID, c.Contested)
			}
			checkTextMatches(b, c, probs)
			// A known issue blocks like any case: pinned without a gap,
			// the release that fixes the defect would fail it.
			if c.KnownIssues != "" && c.Gap == nil {
				probs.add(c.Pos.File, c.Pos.Line, "pin the defect with gap: (present: the defect, closed: what a fixed release does)", "case %s: a known issue needs gap:, or a release that fixes it fails the case", c.ID)
			}
		}
	}
	checkProofs(b, probs)
	validateClaims(b, suiteNames, probs)
}

// checkTextMatches refuses a blocking case that matches the words of a
// message, unless it rests on a register entry whose wording: says why: a
// release that words a fact otherwise is no less conformant, so a check on
// words fails a conformant cluster unless the fact exists only as words.
//
// A bundle without a register (a fragment of suites, as tests load) has no
// entry to rest on and no claims to block: the rule holds where there is.
func checkTextMatches(b *Bundle, c *spec.Case, probs *Problems) {
	if len(b.Register) == 0 {
		return
	}
	var entry *spec.RegisterEntry
	for _, e := range b.Register {
		if e.ID == c.Contested {
			entry = e
		}
	}
	if entry != nil && (entry.Open() || strings.TrimSpace(entry.Wording) != "") {
		return
	}
	steps := c.Steps
	if c.Gap != nil {
		steps = append(slices.Clone(steps), c.Gap.Closed...)
	}
	for i := range steps {
		for _, m := range textMatches(&steps[i]) {
			why := "it rests on no register entry"
			if entry != nil {
				why = "its entry " + entry.ID + " has no wording: that says why"
			}
			probs.add(steps[i].Pos.File, steps[i].Pos.Line, "match the status (invalid:, refused:) or a meaning (reason:), or rest the case on a register entry whose wording: says why only text carries the fact",
				"case %s blocks its claims and matches the words of a message (%s), but %s", c.ID, m, why)
		}
	}
}

// textMatches are the places a step matches a message's words.
func textMatches(st *spec.Step) []string {
	var out []string
	for _, w := range []*spec.Write{st.Create, st.Update, st.Apply} {
		if w == nil || w.Expect == nil {
			continue
		}
		if w.Expect.Rejected != "" {
			out = append(out, fmt.Sprintf("rejected: %q", w.Expect.Rejected))
		}
		if w.Expect.Warning != "" {
			out = append(out, fmt.Sprintf("warning: %q", w.Expect.Warning))
		}
	}
	if e := st.ExpectUnschedulable; e != nil {
		if e.Message != "" {
			out = append(out, fmt.Sprintf("message: %q", e.Message))
		}
		if e.Lacks != "" {
			out = append(out, fmt.Sprintf("lacks: %q", e.Lacks))
		}
	}
	if e := st.ExpectEvent; e != nil && e.Message != "" {
		out = append(out, fmt.Sprintf("message: %q", e.Message))
	}
	return out
}

var registerID = regexp.MustCompile(`^R[0-9]+$`)

func validateRegister(b *Bundle, probs *Problems) map[string]bool {
	ids := map[string]bool{}
	for _, e := range b.Register {
		if !registerID.MatchString(e.ID) {
			probs.add(e.Pos.File, e.Pos.Line, "R1, R2, …", "register id %q is not R<number>", e.ID)
		}
		if ids[e.ID] {
			probs.add(e.Pos.File, e.Pos.Line, "", "register id %s is used twice", e.ID)
		}
		ids[e.ID] = true
		if e.Title == "" || e.Quote == "" || e.Observed == "" || e.Reading == "" {
			probs.add(e.Pos.File, e.Pos.Line, "every entry says title, quote, observed and reading", "register entry %s is incomplete", e.ID)
		}
		if e.Section != "" && !slices.Contains(spec.KEPSections, e.Section) {
			probs.add(e.Pos.File, e.Pos.Line, probs.closest(e.Section, spec.KEPSections), "register entry %s: unknown KEP section %q", e.ID, e.Section)
		}
		validateStance(e, probs)
	}
	return ids
}

// validateStance makes every entry say whether its cases block: a silent
// default would let a reading the suite requires inform by omission.
func validateStance(e *spec.RegisterEntry, probs *Problems) {
	stances := []string{spec.StanceEnforced, spec.StanceOpen}
	switch {
	case e.Stance == "":
		probs.add(e.Pos.File, e.Pos.Line, "stance: enforced (its cases block their claims) or stance: open with openBecause: (they inform)", "register entry %s has no stance", e.ID)
	case !slices.Contains(stances, e.Stance):
		probs.add(e.Pos.File, e.Pos.Line, probs.closest(e.Stance, stances), "register entry %s: stance %q is not enforced or open", e.ID, e.Stance)
	case e.Open() && e.OpenBecause == "":
		probs.add(e.Pos.File, e.Pos.Line, "say what other reading an implementation may conformantly take", "register entry %s is open but has no openBecause: only a genuinely open reading may keep its cases from blocking", e.ID)
	case !e.Open() && e.OpenBecause != "":
		probs.add(e.Pos.File, e.Pos.Line, "stance: open, or drop openBecause", "register entry %s is enforced but says openBecause", e.ID)
	}
	if !e.Open() && e.Stance != "" && strings.TrimSpace(e.EnforcedBy) == "" {
		probs.add(e.Pos.File, e.Pos.Line, "quote the KEP's sentence that makes the reading a promise, or make the entry open", "register entry %s is enforced but quotes no KEP sentence that enforces it (enforcedBy:)", e.ID)
	}
	if e.Open() && e.EnforcedBy != "" {
		probs.add(e.Pos.File, e.Pos.Line, "stance: enforced, or drop enforcedBy", "register entry %s is open but says enforcedBy", e.ID)
	}
}

// checkProofs makes sure every case a register entry cites exists.
func checkProofs(b *Bundle, probs *Problems) {
	cases := map[string]bool{}
	for _, s := range b.Suites {
		for _, c := range s.Cases {
			cases[s.Name+"/"+c.ID] = true
		}
	}
	for _, e := range b.Register {
		for _, p := range e.Proof {
			if !cases[p] {
				probs.add(e.Pos.File, e.Pos.Line, closestKey(probs, p, cases), "register entry %s cites case %s, which does not exist", e.ID, p)
			}
		}
	}
}

func validateCell(c *spec.Cell, probs *Problems) {
	if !dnsLabel.MatchString(c.Name) {
		probs.add(c.Pos.File, c.Pos.Line, "lower-case letters, digits and -", "cell name %q is not a DNS label", c.Name)
	}
	for comp, gates := range c.Gates {
		if !slices.Contains(spec.KnownComponents, comp) {
			probs.add(c.Pos.File, c.Pos.Line, probs.closest(comp, spec.KnownComponents), "cell %s: unknown component %q", c.Name, comp)
		}
		checkGates(c.Pos, gates, probs)
	}
	for _, comp := range c.Released {
		if !slices.Contains(spec.KnownComponents, comp) {
			probs.add(c.Pos.File, c.Pos.Line, probs.closest(comp, spec.KnownComponents), "cell %s: released: unknown component %q", c.Name, comp)
		}
		if len(c.Gates[comp]) > 0 {
			// A released binary predates the KEP's gate; an older one's
			// gates are not what the cell is about.
			probs.add(c.Pos.File, c.Pos.Line, "set gates only on the implementation's components", "cell %s: %s runs a released binary, so the cell must not set its gates", c.Name, comp)
		}
	}
}

func checkGates(pos spec.Pos, gates map[string]bool, probs *Problems) {
	for g := range gates {
		if _, ok := spec.KnownGates[g]; !ok {
			probs.add(pos.File, pos.Line, closestKey(probs, g, spec.KnownGates), "unknown feature gate %q", g)
		}
	}
}

func validateFixture(f *spec.Fixture, probs *Problems) {
	if f.Name == "" {
		probs.add(f.Pos.File, f.Pos.Line, "", "fixture has no name")
	}
	if !spec.IsSet(f.Object) || spec.Kind(&f.Object) == "" {
		probs.add(f.Pos.File, f.Pos.Line, "object: needs apiVersion, kind and metadata", "fixture %s: object has no kind", f.Name)
	}
	for pname, v := range f.Params {
		v := v
		for _, r := range spec.NodeVarRefs(&v) {
			if !slices.Contains(spec.Builtins, r.Name) {
				probs.add(f.Pos.File, r.Line, "a default may use only "+joinQuoted(spec.Builtins), "fixture %s: param %s refers to ${%s}", f.Name, pname, r.Name)
			}
		}
	}
	for _, r := range spec.NodeVarRefs(&f.Object) {
		if _, param := f.Params[r.Name]; !param && r.Name != "name" && !slices.Contains(spec.Builtins, r.Name) {
			hint := closestKey(probs, r.Name, f.Params, append(slices.Clone(spec.Builtins), "name")...)
			probs.add(f.Pos.File, r.Line, hint+" declare it under params:", "fixture %s: undefined variable ${%s}", f.Name, r.Name)
		}
	}
}

// caseCheck carries what validating one case needs.
type caseCheck struct {
	b     *Bundle
	s     *spec.Suite
	c     *spec.Case
	probs *Problems
	refs  map[spec.Ref]spec.Pos
	used  map[string]bool
	// fixtures are those whose params were matched with the case's vars.
	fixtures map[string]bool
}

// scope is the variables steps and inline objects may use: the builtins,
// the profile's, the suite's and the case's, and for an object its own
// ${name}. They are looked up in the maps that hold them, so a case costs
// time in proportion to its size, and listed only for a hint.
type scope struct {
	s    *spec.Suite
	c    *spec.Case
	name bool
}

func (cc *caseCheck) scope() scope       { return scope{s: cc.s, c: cc.c} }
func (cc *caseCheck) objectScope() scope { return scope{s: cc.s, c: cc.c, name: true} }

func (sc scope) has(v string) bool {
	_, suite := sc.s.Vars[v]
	_, c := sc.c.Vars[v]
	return suite || c || sc.name && v == "name" || slices.Contains(spec.Builtins, v) || slices.Contains(spec.ProfileVarNames, v)
}

// hint suggests a variable of the scope for got.
func (sc scope) hint(probs *Problems, got string) string {
	if !probs.hinting() || len(sc.s.Vars)+len(sc.c.Vars) > maxHintCandidates {
		return ""
	}
	names := append(append(slices.Clone(spec.Builtins), spec.ProfileVarNames...), slices.Sorted(maps.Keys(sc.s.Vars))...)
	names = append(names, slices.Sorted(maps.Keys(sc.c.Vars))...)
	if sc.name {
		names = append(names, "name")
	}
	return closest(got, names)
}

func validateSuite(b *Bundle, s *spec.Suite, probs *Problems) {
	if s.Kind != "Suite" {
		return
	}
	if !dnsLabel.MatchString(s.Name) {
		probs.add(s.Pos.File, s.Pos.Line, "lower-case letters, digits and -", "suite name %q is not a DNS label", s.Name)
	}
	checkKEP(s.Pos, s.KEP, probs)
	checkCells(b, s.Pos, s.Cells, probs)
	checkExpansion(s, probs)
	ids := map[string]spec.Pos{}
	for i := range s.Cases {
		c := &s.Cases[i]
		if prev, dup := ids[c.ID]; dup {
			probs.add(c.Pos.File, c.Pos.Line, "", "case id %q is already used at line %d", c.ID, prev.Line)
		}
		ids[c.ID] = c.Pos
		validateCase(b, s, c, probs)
	}
	if len(s.Cases) == 0 {
		probs.add(s.Pos.File, s.Pos.Line, "", "suite %s has no cases", s.Name)
	}
}

func checkKEP(pos spec.Pos, sections []string, probs *Problems) {
	for _, k := range sections {
		if !slices.Contains(spec.KEPSections, k) {
			probs.add(pos.File, pos.Line, probs.closest(k, spec.KEPSections), "unknown KEP section %q", k)
		}
	}
}

func checkCells(b *Bundle, pos spec.Pos, cells []string, probs *Problems) {
	for i, name := range cells {
		if _, ok := b.Cells[name]; !ok {
			probs.add(pos.File, b.lineOf(&cells[i], pos.Line), probs.closest(name, b.CellOrder), "unknown cell %q", name)
		}
	}
}

func validateCase(b *Bundle, s *spec.Suite, c *spec.Case, probs *Problems) {
	at := func(hint, format string, args ...any) { probs.add(c.Pos.File, c.Pos.Line, hint, format, args...) }
	if !dnsLabel.MatchString(c.ID) {
		at("lower-case letters, digits and -", "case id %q is not a DNS label", c.ID)
	}
	if c.Title == "" {
		at("say in one sentence what must hold", "case %s has no title", c.ID)
	}
	checkKEP(c.Pos, c.KEP, probs)
	checkCells(b, c.Pos, c.Cells, probs)
	if len(c.Cells) == 0 && len(s.Cells) == 0 {
		at("list cells: in the suite or the case", "case %s runs in no cell", c.ID)
	}
	checkEnum(c.Pos, "requires.extendedResourceCapacityRequests", c.Requires.CapacityRequestsField, []string{"", "unknown", "dropped", "kept"}, probs)
	checkEnum(c.Pos, "requires.consumableCapacity", c.Requires.ConsumableCapacity, []string{"", "enabled", "disabled"}, probs)
	checkEnum(c.Pos, "requires.deviceTaints", c.Requires.DeviceTaints, []string{"", "enabled", "disabled"}, probs)
	checkEnum(c.Pos, "requires.partitionableDevices", c.Requires.PartitionableDevices, []string{"", "enabled", "disabled"}, probs)
	if len(c.Steps) == 0 {
		at("", "case %s has no steps", c.ID)
	}
	cc := &caseCheck{b: b, s: s, c: c, probs: probs, refs: map[spec.Ref]spec.Pos{}, used: map[string]bool{}, fixtures: map[string]bool{}}
	for i := range c.Given {
		cc.use(&c.Given[i], false)
	}
	for i := range c.Steps {
		cc.step(&c.Steps[i])
	}
	if c.Gap != nil {
		cc.gap(c.Gap)
	}
	cc.pinned()
	for _, v := range slices.Sorted(maps.Keys(c.Vars)) {
		if !cc.used[v] {
			at("remove it, or declare it as a param of the fixture meant to take it", "case %s: variable %q is not used", c.ID, v)
		}
	}
}

// gap checks a gap's closed steps. They run after the pinning step failed
// and may use any object of the case: one the steps did not get to create
// fails them at run time, with the reason.
func (cc *caseCheck) gap(g *spec.Gap) {
	if g.Present == "" {
		cc.probs.add(g.Pos.File, g.Pos.Line, "say which release has the gap, and what it does", "case %s: gap.present is empty", cc.c.ID)
	}
	if len(g.Closed) == 0 {
		cc.probs.add(g.Pos.File, g.Pos.Line, "a gap that cannot be seen closed would fail every cluster that closed it", "case %s: gap.closed has no steps", cc.c.ID)
	}
	if cc.c.Contested == "" && cc.c.KnownIssues == "" {
		cc.probs.add(g.Pos.File, g.Pos.Line, "set contested: (the register entry) or knownIssue:", "case %s: a gap must be recorded in the register or as a known issue", cc.c.ID)
	}
	for i := range g.Closed {
		cc.step(&g.Closed[i])
	}
}

// pinned checks that a case with a gap names the one step that pins it,
// and that nothing else claims to: the runner forgives only that step's
// failure, so a gap with none, or with several, would forgive too little
// or too much.
func (cc *caseCheck) pinned() {
	var pins []spec.Pos
	for i := range cc.c.Steps {
		if cc.c.Steps[i].PinsGap {
			pins = append(pins, cc.c.Steps[i].Pos)
		}
	}
	if cc.c.Gap == nil {
		for _, p := range pins {
			cc.probs.add(p.File, p.Line, "add gap: (present:, closed:) to the case, or drop pinsGap", "case %s: pinsGap: true, but the case has no gap:", cc.c.ID)
		}
		return
	}
	g := cc.c.Gap
	switch {
	case len(pins) == 0:
		cc.probs.add(g.Pos.File, g.Pos.Line, "mark the step that fails where the gap is closed with pinsGap: true", "case %s: gap: names no step that pins it, so no failure could run gap.closed", cc.c.ID)
	case len(pins) > 1:
		for _, p := range pins[1:] {
			cc.probs.add(p.File, p.Line, fmt.Sprintf("keep pinsGap: true on one step (the first is at line %d)", pins[0].Line), "case %s: a second step pins the gap; exactly one may", cc.c.ID)
		}
	}
	for i := range g.Closed {
		if g.Closed[i].PinsGap {
			p := g.Closed[i].Pos
			cc.probs.add(p.File, p.Line, "mark the step of steps: that pins the gap", "case %s: pinsGap: true in gap.closed, which runs after the gap is found closed", cc.c.ID)
		}
	}
}

func checkEnum(pos spec.Pos, field, got string, allowed []string, probs *Problems) {
	if !slices.Contains(allowed, got) {
		probs.add(pos.File, pos.Line, "one of "+joinQuoted(allowed[1:]), "%s: %q is not allowed", field, got)
	}
}

// use checks an object use and records the ref it defines. An update refers
// to an object the case already has instead of defining one.
func (cc *caseCheck) use(u *spec.ObjectUse, update bool) {
	p := u.Pos
	if (u.Fixture == "") == !spec.IsSet(u.Object) {
		cc.probs.add(p.File, p.Line, "", "give exactly one of fixture: or object:")
		return
	}
	obj, f := u.Template(cc.b.Fixtures)
	if obj == nil {
		cc.probs.add(p.File, p.Line, closestKey(cc.probs, u.Fixture, cc.b.Fixtures), "unknown fixture %q", u.Fixture)
		return
	}
	name := u.LocalName(cc.b.Fixtures)
	if name == "" {
		cc.probs.add(p.File, p.Line, "set name:", "object has no local name")
		return
	}
	if f != nil {
		for v := range u.Vars {
			if _, ok := f.Params[v]; !ok && v != "name" {
				cc.probs.add(p.File, p.Line, closestKey(cc.probs, v, f.Params, "name"), "fixture %s has no param %q", f.Name, v)
			}
		}
		// A case var a param of the fixture takes is used, once per
		// fixture and case.
		if !cc.fixtures[f.Name] {
			cc.fixtures[f.Name] = true
			for pname := range f.Params {
				if _, ok := cc.c.Vars[pname]; ok {
					cc.used[pname] = true
				}
			}
		}
	} else {
		cc.refsIn(obj, cc.objectScope())
	}
	for _, v := range u.Vars {
		v := v
		cc.refsIn(&v, cc.scope())
	}
	if spec.IsSet(u.Patch) {
		cc.refsIn(&u.Patch, cc.objectScope())
	}
	ref := spec.RefOf(spec.Kind(obj), name)
	if update {
		cc.need(p, ref)
		return
	}
	if prev, dup := cc.refs[ref]; dup {
		cc.probs.add(p.File, p.Line, "give it another name:", "%s is already defined at line %d", ref, prev.Line)
	}
	cc.refs[ref] = p
}

func (cc *caseCheck) refsIn(n *yaml.Node, defined scope) {
	for _, r := range spec.NodeVarRefs(n) {
		cc.used[r.Name] = true
		if !defined.has(r.Name) {
			cc.probs.add(cc.c.Pos.File, r.Line, defined.hint(cc.probs, r.Name), "undefined variable ${%s}", r.Name)
		}
	}
}

func (cc *caseCheck) need(p spec.Pos, ref spec.Ref) {
	if _, ok := cc.refs[ref]; !ok {
		cc.probs.add(p.File, p.Line, closestKey(cc.probs, string(ref), cc.refs), "%s is not an object of this case (at this point)", ref)
	}
}

func (cc *caseCheck) step(st *spec.Step) {
	p := st.Pos
	set := cc.b.Kinds.Set(st)
	if len(set) != 1 {
		cc.probs.add(p.File, p.Line, "one of "+joinQuoted(cc.b.Kinds.Keys()), "a step needs exactly one action, found %d", len(set))
		return
	}
	cc.stringsIn(reflect.ValueOf(st).Elem(), p)
	set[0].Check(cc, st)
}

// caseCheck is the spec.Checker a step kind's Check reports through.
var _ spec.Checker = (*caseCheck)(nil)

func (cc *caseCheck) Case() *spec.Case              { return cc.c }
func (cc *caseCheck) Need(p spec.Pos, ref spec.Ref) { cc.need(p, ref) }
func (cc *caseCheck) Define(p spec.Pos, ref spec.Ref) {
	if prev, dup := cc.refs[ref]; dup {
		cc.probs.add(p.File, p.Line, "give it another name", "%s is already defined at line %d", ref, prev.Line)
		return
	}
	cc.refs[ref] = p
}
func (cc *caseCheck) Write(w *spec.Write, update bool) { cc.write(w, update) }
func (cc *caseCheck) Vars(n *yaml.Node)                { cc.refsIn(n, cc.scope()) }
func (cc *caseCheck) Closest(got string, candidates []string) string {
	return cc.probs.closest(got, candidates)
}
func (cc *caseCheck) Problem(p spec.Pos, hint, format string, args ...any) {
	cc.probs.add(p.File, p.Line, hint, format, args...)
}
func (cc *caseCheck) Enum(p spec.Pos, field, got string, allowed []string) {
	checkEnum(p, field, got, allowed, cc.probs)
}
func (cc *caseCheck) Gates(p spec.Pos, gates map[string]bool) { checkGates(p, gates, cc.probs) }

func (cc *caseCheck) write(w *spec.Write, update bool) {
	p := w.Pos
	cc.use(&w.ObjectUse, update)
	checkEnum(p, "fieldValidation", w.FieldValidation, []string{"", "Strict", "Warn", "Ignore"}, cc.probs)
	if e := w.Expect; e != nil {
		n := 0
		for _, set := range []bool{e.Invalid != "", e.Refused != "", e.Rejected != "", e.Warning != "", e.NoWarning} {
			if set {
				n++
			}
		}
		if n != 1 {
			cc.probs.add(p.File, p.Line, "invalid, refused, rejected, warning or noWarning", "expect: needs exactly one outcome, found %d", n)
		}
		if e.Refused != "" && e.Refused != spec.RefusedAny && !slices.Contains(spec.StatusReasons, e.Refused) {
			cc.probs.add(p.File, p.Line, "", "expect.refused: %q is no API status reason (%v, or %s)", e.Refused, spec.StatusReasons, spec.RefusedAny)
		}
	}
}

// stringsIn checks variable references in every plain string field of a step
// (messages, resource names); yaml.Node fields are checked where they are used.
func (cc *caseCheck) stringsIn(v reflect.Value, p spec.Pos) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			cc.stringsIn(v.Elem(), p)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(yaml.Node{}) || v.Type() == reflect.TypeOf(spec.ObjectUse{}) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				cc.stringsIn(v.Field(i), p)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			cc.stringsIn(v.Index(i), p)
		}
	case reflect.String:
		for _, name := range spec.VarRefs(v.String()) {
			cc.used[name] = true
			if sc := cc.scope(); !sc.has(name) {
				cc.probs.add(p.File, p.Line, sc.hint(cc.probs, name), "undefined variable ${%s}", name)
			}
		}
	}
}

func joinQuoted(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

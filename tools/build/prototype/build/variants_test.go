package build

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Variants are found by name like mutants, get keys of their own, and stay
// out of Mutants(), which the mutation table iterates.
func TestVariantsAreNotMutants(t *testing.T) {
	seen := map[string]string{Key(Options{}): "the prototype"}
	for _, m := range Mutants() {
		seen[Key(Options{Mutant: m.Name})] = "mutant " + m.Name
	}
	if len(Variants()) == 0 || Variants()[0].Name != "claim-capacity-validated" {
		t.Fatalf("the first variant is not claim-capacity-validated: %+v", Variants())
	}
	for _, v := range Variants() {
		for _, m := range Mutants() {
			if m.Name == v.Name {
				t.Errorf("variant %s is listed as a mutant", v.Name)
			}
		}
		got, err := LookupMutant(v.Name)
		if err != nil || got.Name != v.Name {
			t.Errorf("LookupMutant(%q) = %q, %v", v.Name, got.Name, err)
		}
		if err := (&Options{Mutant: v.Name, RepoRoot: t.TempDir()}).defaults(); err != nil {
			t.Errorf("options with variant %s are refused: %v", v.Name, err)
		}
		k := Key(Options{Mutant: v.Name})
		if other, ok := seen[k]; ok {
			t.Errorf("variant %s has the key of %s", v.Name, other)
		}
		seen[k] = "variant " + v.Name
		if len(v.Edits) == 0 || v.Omit != "" {
			t.Errorf("variant %s: %d edits, omits %q; want edits on top of the whole prototype", v.Name, len(v.Edits), v.Omit)
		}
		if v.Mistake == "" || v.Reading == "" {
			t.Errorf("variant %s must say what it does otherwise (%q) and why the KEP allows it (%q)", v.Name, v.Mistake, v.Reading)
		}
	}
}

// TestVariantEditsApplyToBaseSources applies the prototype's edits and then
// each variant's to the v1.37.2 sources from the module cache, checks that
// the edited files still parse, and that claim-capacity-validated wires the
// v1.38 capacity checks into both kinds of request and into template updates.
// Nothing is compiled; `prototype build -mutant claim-capacity-validated` does.
func TestVariantEditsApplyToBaseSources(t *testing.T) {
	if testing.Short() {
		t.Skip("copies Kubernetes sources")
	}
	modDirs := baseModuleDirs(t)
	for _, v := range Variants() {
		t.Run(v.Name, func(t *testing.T) {
			groups := EditSet(Options{Mutant: v.Name})
			roots, all := copyEditedFiles(t, modDirs, groups)
			if groups[len(groups)-1].Name != "mutant "+v.Name {
				t.Fatalf("the variant's edits are not applied last: groups %v", groups)
			}
			files, err := ApplyEdits(roots, all)
			if err != nil {
				t.Fatal(err)
			}
			parsed := map[string]bool{}
			for _, e := range all {
				path := filepath.Join(roots[e.Module], filepath.FromSlash(e.File))
				if parsed[path] || !strings.HasSuffix(path, ".go") {
					continue
				}
				parsed[path] = true
				if _, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution); err != nil {
					t.Errorf("%s/%s does not parse after the edits: %v", e.Module, e.File, err)
				}
			}
			t.Logf("%d edits applied to %d files", len(all), len(files))
			if v.Name == "claim-capacity-validated" {
				checkClaimCapacityValidated(t, roots)
			}
		})
	}
}

// checkClaimCapacityValidated checks, in the sources edited for
// claim-capacity-validated, that the v1.38 capacity checks are wired into
// both kinds of request and into template updates.
func checkClaimCapacityValidated(t *testing.T, roots map[Module]string) {
	t.Helper()
	read := func(m Module, file string) string {
		b, err := os.ReadFile(filepath.Join(roots[m], filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	validation := read(Kubernetes, resourceValidation)
	for _, want := range []string{
		// Claims: no old spec; templates: the stored one.
		`validateResourceClaimSpec(&resourceClaim.Spec, nil, field.NewPath("spec"), false)`,
		`allErrs := validateResourceClaimTemplate(template, &oldTemplate.Spec.Spec)`,
		// Both kinds of request, at the paths v1.38 reports.
		"\tallErrs = append(allErrs, validateCapacityRequirements(request.Capacity, oldCapacity, fldPath.Child(\"capacity\"))...)\n\treturn allErrs\n}\n",
		"\tallErrs = append(allErrs, validateCapacityRequirements(subRequest.Capacity, oldCapacity, fldPath.Child(\"capacity\"))...)\n\treturn allErrs\n}\n",
		`validateCapacityNames(capacity.Requests, fldPath.Child("requests"))`,
		// v1.38's messages.
		`"must not contain more than one slash"`,
		`"must be greater than or equal to "+minimum.String()`,
		`field.TooMany(fldPath, len(capacities), 32).WithOrigin("maxProperties")`,
	} {
		if !strings.Contains(validation, want) {
			t.Errorf("%s lacks %q", resourceValidation, want)
		}
	}
	// The ResourceSlice and DeviceClass checks keep v1.37.2's validateQualifiedName.
	if !strings.Contains(validation, "\tparts := strings.Split(string(name), \"/\")\n\tswitch len(parts) {\n") {
		t.Errorf("validateQualifiedName was changed")
	}
	strategy := read(Kubernetes, resourceClaimTemplateStrategy)
	if strings.Contains(strategy, "validation.ValidateResourceClaimTemplate(obj") {
		t.Errorf("%s still validates an updated template without its old spec", resourceClaimTemplateStrategy)
	}
}

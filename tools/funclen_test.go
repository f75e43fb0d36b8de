package tools

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the module's code may be, from
// its func line to its closing brace: one that grows past it does several
// things, and a reader has to hold them all at once. Tests are exempt: a
// table of cases reads best whole.
const maxFuncLines = 60

// longFuncs lists every non-test function of the module under root (not
// the pinned modules, caches or test data) over max lines, as
// "file: name (n lines)".
func longFuncs(root string, max int) ([]string, error) {
	var out []string
	fset := token.NewFileSet()
	err := walkModuleGo(root, func(path, rel string) error {
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", rel, err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > max {
				out = append(out, fmt.Sprintf("%s: %s (%d lines)", filepath.ToSlash(rel), funcName(fn), n))
			}
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// funcName is a function's name, or Type.Method for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

func TestNoFunctionIsTooLong(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	long, err := longFuncs(root, maxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range long {
		t.Errorf("%s: over %d lines; split it", row, maxFuncLines)
	}
}

// The rule must be able to fail: a function of 61 lines is named, with its
// receiver, and one of 60 is not.
func TestLongFuncsNamesAFunctionOverTheLimit(t *testing.T) {
	dir := t.TempDir()
	body := func(name string, lines int) string {
		return "func " + name + " {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	src := "package x\n\ntype T struct{}\n\n" + body("(t *T) Long()", maxFuncLines+1) + body("Fits()", maxFuncLines)
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte("package x\n\n"+body("TestLong()", 99)), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := longFuncs(dir, maxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("x.go: T.Long (%d lines)", maxFuncLines+1); len(got) != 1 || got[0] != want {
		t.Errorf("longFuncs = %q, want [%q]", got, want)
	}
}

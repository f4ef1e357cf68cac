package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// formulaMakers are the production files that may make a backend.Formula:
// the Check cells of the live checks, whose text package templates
// compiles from a template, and the places of blocks' rows on the
// metadata sheet, made of a cell reference only. Nothing else becomes a
// formula: text from inputs and annotators is always written as text.
var formulaMakers = []string{"layout/livecheck.go", "layout/places.go"}

func TestFormulasOnlyFromTemplates(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	found := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path == root {
				return nil
			}
			if rel == "testkit" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isFormulaType(lit.Type, f.Name.Name) {
				return true
			}
			found[rel] = true
			if !slices.Contains(formulaMakers, rel) {
				t.Errorf("%s: makes a backend.Formula; only %v may (the live checks' compiled formulas)", fset.Position(lit.Pos()), formulaMakers)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range formulaMakers {
		if !found[f] {
			t.Errorf("%s makes no backend.Formula any more: update formulaMakers", f)
		}
	}
}

// isFormulaType reports whether a composite literal's type is
// backend.Formula (Formula itself inside package backend).
func isFormulaType(e ast.Expr, pkg string) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == "backend" && e.Sel.Name == "Formula"
	case *ast.Ident:
		return pkg == "backend" && e.Name == "Formula"
	}
	return false
}

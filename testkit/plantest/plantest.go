// Package plantest reads sheet plans in tests: a plan built from a
// template and input files, a sheet of it by name, its rows, a column by
// key and a cell's text.
package plantest

import (
	"context"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// Build builds the plan of template tmpl (a name or a file) over inputs;
// the plan is closed when the test ends.
func Build(t testing.TB, tmpl string, opt layout.Options, inputs ...string) (*templates.Template, *layout.Result) {
	t.Helper()
	tp, err := input.Template(tmpl, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := input.Open(tp.Input.Format, inputs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tp, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Close() })
	return tp, res
}

// Rows collects the rows a sheet of the plan produces, which must be as
// many as it declares.
func Rows(t testing.TB, sh *backend.Sheet) []backend.Row {
	t.Helper()
	var rows []backend.Row
	if err := sh.Rows(func(r backend.Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != sh.RowCount {
		t.Fatalf("sheet %s produced %d rows, declared %d", sh.Name, len(rows), sh.RowCount)
	}
	return rows
}

// Sheet is the plan's sheet of that name.
func Sheet(t testing.TB, p *backend.Plan, name string) *backend.Sheet {
	t.Helper()
	for _, s := range p.Sheets {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no sheet %s", name)
	return nil
}

// Col is the index of the template's column of that key.
func Col(t testing.TB, tp *templates.Template, key string) int {
	t.Helper()
	for i, c := range tp.Columns() {
		if c.Key == key {
			return i
		}
	}
	t.Fatalf("no column %s", key)
	return -1
}

// Text is a cell's text ("" for a cell of another kind).
func Text(c backend.Cell) string {
	s, _ := c.Value.(string)
	return s
}

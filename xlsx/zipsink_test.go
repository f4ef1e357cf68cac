package xlsx

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
)

// TestWriteRowsFaults: a plan whose rows fail, miscount, or break the
// styles they declared is an error naming the sheet, never a workbook
// quietly short of rows.
func TestWriteRowsFaults(t *testing.T) {
	t.Parallel()
	errInput := errors.New("input changed")
	for _, c := range []struct {
		name  string
		alter func(sh *backend.Sheet)
		want  string
	}{
		{"rows fail", func(sh *backend.Sheet) {
			rows := sh.Rows
			k := 0
			sh.Facts = &backend.RowFacts{Styles: []backend.Style{{}}}
			sh.Rows = func(emit func(backend.Row) error) error {
				return rows(func(r backend.Row) error {
					if k++; k == 3 {
						return errInput
					}
					return emit(r)
				})
			}
		}, "sheet Annotate: input changed"},
		{"more rows than counted", func(sh *backend.Sheet) { sh.RowCount = 2 }, "sheet Annotate: plan has more rows than its count 2"},
		{"fewer rows than counted", func(sh *backend.Sheet) { sh.RowCount = 4 }, "sheet Annotate: plan produced 3 rows, not the 4 it declared"},
		{"a style not declared", func(sh *backend.Sheet) {
			rows := sh.Rows
			sh.Facts = &backend.RowFacts{Styles: []backend.Style{{}}}
			sh.Rows = func(emit func(backend.Row) error) error {
				return rows(func(r backend.Row) error {
					r.Cells[1].Style.Bold = true
					return emit(r)
				})
			}
		}, "sheet Annotate: cell B1: its style was not declared"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := tinyPlan()
			c.alter(p.Sheets[0])
			err := Write(p, &bytes.Buffer{}, WriteOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

// TestWriteLinks: links land on their cells, a merged range's link on its
// first cell, next to what excelize lays out around them (validations
// before, comments after), and the sheet's facts, when declared, spare a
// second reading of its rows.
func TestWriteLinks(t *testing.T) {
	t.Parallel()
	p := tinyPlan()
	sh := p.Sheets[0]
	sh.Merges = []backend.Merge{{FirstCol: 4, FirstRow: 2, LastCol: 4, LastRow: 3}}
	sh.Notes = []backend.Note{{Row: 1, Col: 0, Text: "a note"}}
	rows, reads := sh.Rows, 0
	sh.Rows = func(emit func(backend.Row) error) error {
		reads++
		return rows(func(r backend.Row) error {
			if id, _ := r.Cells[0].Value.(string); id != "ID" {
				r.Cells[0].Link = &backend.Link{Sheet: "_annosheet", Row: 1, Col: 1}
				r.Cells[4].Link = &backend.Link{Sheet: "_annosheet", Row: 1}
			}
			return emit(r)
		})
	}
	sh.Facts = &backend.RowFacts{Styles: []backend.Style{{}}}
	var buf bytes.Buffer
	if err := Write(p, &buf, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if reads != 1 {
		t.Errorf("rows read %d times, want once", reads)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for cell, want := range map[string]string{"A2": "_annosheet!B1", "A3": "_annosheet!B1", "E2": "_annosheet!A1", "E3": ""} {
		ok, target, err := f.GetCellHyperLink("Annotate", cell)
		if err != nil {
			t.Fatal(err)
		}
		if want == "" && ok || want != "" && (!ok || target != want) {
			t.Errorf("link of %s: %v %q, want %q", cell, ok, target, want)
		}
	}
	if dvs, err := f.GetDataValidations("Annotate"); err != nil || len(dvs) != 1 {
		t.Errorf("validations %v, %v", dvs, err)
	}
	if cs, err := f.GetComments("Annotate"); err != nil || len(cs) != 1 {
		t.Errorf("comments %v, %v", cs, err)
	}
}

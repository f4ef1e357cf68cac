package decode_test

import (
	"errors"
	"io"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/templates"
)

// failAt makes a grid's Rows fail on one row of one sheet, as a damaged
// or truncated file, or a network read, does mid-stream.
func failAt(g *backend.Grid, sheet string, row int, cause error) *backend.Grid {
	rows := g.Rows
	g.Rows = func(s string, fn func(int, []backend.ReadCell) error) error {
		return rows(s, func(n int, cells []backend.ReadCell) error {
			if s == sheet && n == row {
				return cause
			}
			return fn(n, cells)
		})
	}
	return g
}

// TestPullReadError checks that a workbook that fails to read is reported
// as that, with its cause, and never as "not an annosheet workbook".
func TestPullReadError(t *testing.T) {
	tp, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	m := newMemBook(t, tp, ksRecords)
	answerAll(m)
	cases := []struct {
		name  string
		sheet string
		row   int
		cause error
		msg   string
	}{
		{"metadata sheet, first row", backend.SheetMeta, 1, io.ErrUnexpectedEOF,
			"book.xlsx: read sheet _annosheet: unexpected EOF"},
		{"metadata sheet, among the units", backend.SheetMeta, 5, io.ErrUnexpectedEOF,
			"book.xlsx: read sheet _annosheet: unexpected EOF"},
		{"annotate sheet, header", backend.SheetAnnotate, 1, errors.New("connection reset"),
			"book.xlsx: read sheet Annotate: connection reset"},
		{"annotate sheet, mid-sheet", backend.SheetAnnotate, 3, errors.New("zip: checksum error"),
			"book.xlsx: read sheet Annotate: zip: checksum error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := decode.Pull(failAt(m.grid(), c.sheet, c.row, c.cause), decode.PullOptions{})
			if p != nil || err == nil {
				t.Fatalf("Pull = %v, %v; want an error", p, err)
			}
			if !errors.Is(err, c.cause) || errors.Is(err, decode.ErrNotWorkbook) || err.Error() != c.msg {
				t.Errorf("err = %q\nwant %q, wrapping %q and not %q", err, c.msg, c.cause, decode.ErrNotWorkbook)
			}
		})
	}
}

// TestPullMetaCutShort checks that a metadata sheet that reads without an
// error but lacks units (a file cut short) is refused, not read as a
// workbook whose units were all deleted.
func TestPullMetaCutShort(t *testing.T) {
	tp, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	m := newMemBook(t, tp, ksRecords)
	meta := m.sheets[backend.SheetMeta]
	m.sheets[backend.SheetMeta] = meta[:len(meta)-1]
	_, err = decode.Pull(m.grid(), decode.PullOptions{})
	want := "book.xlsx: not an annosheet workbook: the _annosheet sheet is damaged: it lists 2 units, its record says 3"
	if !errors.Is(err, decode.ErrNotWorkbook) || err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

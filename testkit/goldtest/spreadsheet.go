package goldtest

import (
	"context"
	"fmt"

	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/backend"
)

// OpenSpreadsheet opens a Google spreadsheet that annosheet generated, for
// filling in through the Sheets API the way an annotator's edits arrive:
// typed values (USER_ENTERED, so "3" is a number and TRUE a ticked
// checkbox, while text-formatted cells keep text), and rows inserted with
// the look of the row above.
func OpenSpreadsheet(ctx context.Context, svc *sheetsapi.Service, id string) (*Workbook, error) {
	ss, err := svc.Spreadsheets.Get(id).Context(ctx).Do()
	if err != nil {
		return nil, err
	}
	st := &sheetStore{ctx: ctx, svc: svc, id: id, sheetID: -1}
	for _, sh := range ss.Sheets {
		if sh.Properties.Title == backend.SheetAnnotate {
			st.sheetID = sh.Properties.SheetId
		}
	}
	if st.sheetID < 0 {
		return nil, fmt.Errorf("spreadsheet %s has no %s sheet", id, backend.SheetAnnotate)
	}
	rows := func(sheet string) ([][]string, error) {
		vr, err := svc.Spreadsheets.Values.Get(id, "'"+sheet+"'").ValueRenderOption("FORMATTED_VALUE").Context(ctx).Do()
		if err != nil {
			return nil, err
		}
		out := make([][]string, len(vr.Values))
		for i, r := range vr.Values {
			for _, v := range r {
				out[i] = append(out[i], fmt.Sprint(v))
			}
		}
		return out, nil
	}
	return newWorkbook(id, rows, st)
}

// sheetStore buffers edits and sends them in one values.batchUpdate.
type sheetStore struct {
	ctx     context.Context
	svc     *sheetsapi.Service
	id      string
	sheetID int64
	pending []*sheetsapi.ValueRange
}

func (s *sheetStore) set(cell string, v any) error {
	var val any
	switch v := v.(type) {
	case bool, string, float64:
		val = v
	case int:
		val = v
	default:
		val = fmt.Sprint(v)
	}
	s.pending = append(s.pending, &sheetsapi.ValueRange{Range: backend.SheetAnnotate + "!" + cell, Values: [][]any{{val}}})
	return nil
}

func (s *sheetStore) insertRows(row, n int) error {
	// Edits made before the insertion are at their old places.
	if err := s.save(); err != nil {
		return err
	}
	_, err := s.svc.Spreadsheets.BatchUpdate(s.id, &sheetsapi.BatchUpdateSpreadsheetRequest{Requests: []*sheetsapi.Request{{
		InsertDimension: &sheetsapi.InsertDimensionRequest{
			Range:             &sheetsapi.DimensionRange{SheetId: s.sheetID, Dimension: "ROWS", StartIndex: int64(row - 1), EndIndex: int64(row - 1 + n)},
			InheritFromBefore: row > 2,
		},
	}}}).Context(s.ctx).Do()
	return err
}

func (s *sheetStore) save() error {
	if len(s.pending) == 0 {
		return nil
	}
	_, err := s.svc.Spreadsheets.Values.BatchUpdate(s.id, &sheetsapi.BatchUpdateValuesRequest{
		ValueInputOption: "USER_ENTERED", Data: s.pending,
	}).Context(s.ctx).Do()
	s.pending = nil
	return err
}

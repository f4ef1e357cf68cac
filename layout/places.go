package layout

import (
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// The places of a block's rows. A block's generated rows carry their place
// in their hidden unit cells ("q7#3"), so sorting the sheet cannot mix
// them up; a row an annotator inserts carries nothing, and after a sort
// nothing on it tells where it was. What can tell is the metadata sheet:
// for each block, one formula per generated row, ROW(Annotate!$P$5), whose
// value is the row its unit cell is on. Spreadsheet applications move such
// a reference with the cell when rows are inserted, deleted or moved above
// it, and leave it where it is when the sheet is sorted (Excel, LibreOffice
// and Google Sheets alike: sorting moves values, never references). After
// a sort, then, the places still say where each generated row was before
// it, and so which rows of the sheet then were the inserted ones: the
// places no generated row had. Pull puts the inserted rows back there
// (presort); where more than one place could be a row's, it says so.

// MetaPlaces starts a metadata row of a block's places: the unit as
// shown, then one formula per generated row.
const MetaPlaces = "places"

// places is whether the workbook records its blocks' places.
func (b *builder) places() bool { return b.t.Rows.Per == templates.PerBlock }

// placeRow is the metadata row of a unit's places: ROW() of the unit cell
// of each of its generated rows.
func (b *builder) placeRow(u Unit) backend.Row {
	col := -1
	for i, c := range b.cols {
		if c.Role == templates.RoleUnit {
			col = i
		}
	}
	l := backend.Link{Sheet: backend.SheetAnnotate, Row: 1, Col: col}
	ref := l.Ref()
	prefix := ref[:strings.LastIndex(ref, "!")+1] + "$" + backend.ColumnLetter(col) + "$"
	cells := make([]backend.Cell, 0, 2+u.Rows)
	cells = append(cells, backend.Cell{Value: MetaPlaces}, backend.Cell{Value: b.shownUnit(u.ID)})
	for r := u.FirstRow; r < u.FirstRow+u.Rows; r++ {
		cells = append(cells, backend.Cell{Value: backend.Formula{Text: "ROW(" + prefix + strconv.Itoa(r) + ")"}})
	}
	return backend.Row{Cells: cells}
}

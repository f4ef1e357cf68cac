package xlsx

import (
	"fmt"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
)

// linkTip is what Excel shows over a linked cell.
const linkTip = "Go to the linked cell of this workbook"

// links makes the linked cells of row n hyperlinks within the workbook.
// They go in while the sheet streams: excelize writes a streamed sheet's
// hyperlinks when it is flushed, as it does its validations. A link from
// part of a text (Link.From past 0) is left out: the file can only link
// the whole cell, which LibreOffice then shows as a single line.
func (wr *writer) links(sheet string, n int, cells []backend.Cell) error {
	for i, c := range cells {
		if c.Link == nil || c.Link.From > 0 {
			continue
		}
		if _, ok := c.Value.(string); !ok {
			return fmt.Errorf("cell %s links to %s but holds no text", backend.CellName(i, n), c.Link.Ref())
		}
		tip := linkTip
		if err := wr.f.SetCellHyperLink(sheet, backend.CellName(i, n), c.Link.Ref(), "Location", excelize.HyperlinkOpts{Tooltip: &tip}); err != nil {
			return fmt.Errorf("link from %s to %s: %w", backend.CellName(i, n), c.Link.Ref(), err)
		}
	}
	return nil
}

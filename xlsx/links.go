package xlsx

// linkTip is what Excel shows over a linked cell.
//
// A cell's link (backend.Cell.Link) becomes a hyperlink within the
// workbook as the rows are written (rowsWriter.addLink). A link from part
// of a text (Link.From past 0) is left out: the file can only link the
// whole cell, which LibreOffice then shows as a single line.
const linkTip = "Go to the linked cell of this workbook"

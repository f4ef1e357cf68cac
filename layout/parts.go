package layout

import (
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// This file lends the pieces of an annotation workbook to other workbooks
// made from a template (the adjudication's): reading an answer cell as
// pull does, finding a span in its field, sizing rows, and writing an
// Instructions sheet in the same look.

// RowHeight is the height, in points, of a row whose tallest wrapped text
// is s in a column width characters wide; 0 leaves one line to the
// application.
func RowHeight(s string, width float64) float64 {
	return lineHeight(countLines(s, width, maxLines))
}

// Sheet looks shared with annotation workbooks.
var (
	// StyleHeader is a header row's cell.
	StyleHeader = styleHeader
	// FillContext is a read-only context cell's fill.
	FillContext = fillContext
)

// Instructions builds an Instructions sheet in the look of an annotation
// workbook's: prose some 80 characters wide, headings, and tables of four
// columns.
type Instructions struct{ in instr }

// Title adds the sheet's title.
func (s *Instructions) Title(text string) { s.in.prose(text, styleTitle) }

// Hint adds a line of small print.
func (s *Instructions) Hint(text string) { s.in.prose(text, styleHint) }

// Heading starts a section.
func (s *Instructions) Heading(text string) { s.in.blank(); s.in.prose(text, styleHeading) }

// Subheading starts a part of a section.
func (s *Instructions) Subheading(text string) { s.in.blank(); s.in.prose(text, styleSub) }

// Prose adds the paragraphs of a text (split at blank lines, lines of
// each unwrapped).
func (s *Instructions) Prose(text string) {
	for _, p := range paragraphs(text) {
		s.in.prose(p, styleProse)
	}
}

// Bullet adds a paragraph with a bullet.
func (s *Instructions) Bullet(text string) { s.in.prose("• "+text, styleProse) }

// TableHead adds a table's header row of up to four cells.
func (s *Instructions) TableHead(cells ...string) { s.in.table(styleTHead, cells...) }

// TableRow adds a table row of up to four cells.
func (s *Instructions) TableRow(cells ...string) { s.in.table(styleTCell, cells...) }

// Categories adds, under one heading, a table of each choice and multi
// question's labels, codes and meanings, as the annotators' Instructions
// sheet has.
func (s *Instructions) Categories(t *templates.Template) { s.in.categories(t) }

// Sheet is the Instructions sheet, locked.
func (s *Instructions) Sheet() *backend.Sheet { return s.in.sheet() }

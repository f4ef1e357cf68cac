package layout

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Long context.
//
// Excel and LibreOffice neither grow a row past MaxRowHeight (409 points)
// nor fit a row to its text when a file opens: the workbook sets each
// row's height, and what does not fit is clipped, with nothing to show
// that it was. So every context cell has a budget, and a text over it is
// shown in part, visibly, with the whole of it on the Read sheet.
//
// The budget of a cell is lines of a column: MaxRowHeight holds maxLines
// lines of the default font (11 points, 15 points a line), 27; a line
// holds 95% of the column's width in characters (a width counts the
// default font's digits, and prose is narrower, so the estimate leaves
// room rather than clips), East Asian wide characters counting two, and
// wraps at spaces as spreadsheets do. A 60-wide column shows 27 lines of
// 57 characters, at most 1,539 characters; fewer where the text breaks
// its lines. A block's context, merged over the block's rows, has the
// lines of all of them. Within its budget a text is shown whole, and the
// row is as tall as it needs.
//
// A text over its budget shows its head, or its tail (the column's show),
// with "…" where it is cut and, on a last line, where to read it in full:
// the Read sheet's row that starts it. That line links there where a
// backend links part of a text (Google Sheets); the row's ID cell links
// to the row's first such text on every backend. (A whole cell of text
// that Excel links, LibreOffice turns into one field that does not wrap:
// a linked context cell would show one line.) The Read sheet holds each
// such text whole, in rows of a wide column that each hold what one row
// can show (maxLines lines of readWidth), under a header row that names
// its ID and column and links back to its cell. Nothing downstream reads
// the shown copy: spans and evidence are checked against the full text
// the metadata sheet keeps.

const (
	// maxLines is how many lines of the default font the tallest row shows.
	maxLines = (MaxRowHeight - 2) / 15
	// readWidth is the width, in characters, of the Read sheet's text
	// column: about a screen wide, as its rows are about a screen tall.
	readWidth = 100
	// readTagWidth is the width of the Read sheet's second column, which
	// holds the way back and the parts' numbers.
	readTagWidth = 26
)

// linkCap is how many cut texts get links, each way: Excel keeps at
// most backend.MaxLinks a sheet. Beyond it, the last line of a cell still
// names the Read sheet's row. A variable, so that a test can lower it.
var linkCap = backend.MaxLinks

// perLine is how many characters a line of a column width characters wide
// holds, as wrappedLines estimates it.
func perLine(w float64) int { return max(1, int(w*0.95)) }

// charBudget is the most characters a context cell of a column w wide
// shows when it spans rows rows: a full line's worth on every line.
func charBudget(w float64, rows int) int { return perLine(w) * maxLines * rows }

// runeWidth is the width of a character in digits of the default font:
// East Asian wide and full-width characters take two.
func runeWidth(r rune) int {
	if r < 0x1100 { // none wide before Hangul Jamo
		return 1
	}
	return wideWidth(r)
}

func wideWidth(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// isSpace is unicode.IsSpace, quick on ASCII: texts are long, and most of
// their characters are.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r >= '\t' && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// textWidth is the width of a word, as runeWidth counts.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// countLines estimates the lines s takes in a column w characters wide,
// as wrappedLines does, but stops counting once past limit: it reads only
// as much of a long text as the limit needs. It runs over every context
// cell of every row, so runs of ASCII letters are measured a byte at a
// time, without decoding.
func countLines(s string, w float64, limit int) int {
	per := perLine(w)
	wide := per * (limit + 1) // a word wider than all the lines
	n, lines, used, wl := 0, 1, 0, -1
	// place puts the word just read on its line, or reports with done
	// that it is wider than all the lines.
	place := func() (done bool) {
		if wl > wide {
			return true
		}
		switch {
		case used == 0:
		case used+1+wl <= per:
			used++
		default:
			lines++
			used = 0
		}
		if wl > per { // a word longer than the line is broken
			lines += (wl - 1) / per
			wl -= (wl - 1) / per * per
		}
		used += wl
		wl = -1
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case asciiWord[c]:
			j := i + 1
			for j < len(s) && asciiWord[s[j]] {
				j++
			}
			wl = max(wl, 0) + j - i
			i = j
			continue // a word's letters change no line
		case c == '\n':
			i++
			if wl >= 0 && place() {
				return limit + 1
			}
			n += lines
			if n > limit {
				return n
			}
			lines, used = 1, 0
		case c < utf8.RuneSelf: // other ASCII white space
			i++
			if wl >= 0 && place() {
				return limit + 1
			}
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if !unicode.IsSpace(r) {
				wl = max(wl, 0) + runeWidth(r)
				continue
			}
			if wl >= 0 && place() {
				return limit + 1
			}
		}
		if n+lines > limit {
			return n + lines
		}
	}
	if wl >= 0 && place() {
		return limit + 1
	}
	return n + lines
}

// asciiWord marks the ASCII characters that are not white space: the
// letters of words.
var asciiWord = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = !isSpace(rune(c))
	}
	return t
}()

// prefixFit is the length in bytes of the longest prefix of s that takes
// at most lines lines of a column w wide and ends before a word (or at
// the end of s). With para, a prefix that ends after a line break in its
// last third is preferred, after an empty line first, so that parts end
// with paragraphs. A first word too long for all the lines is broken
// inside.
func prefixFit(s string, w float64, lines int, para bool) int {
	n, _ := prefixFitUpTo(s, w, lines, para, len(s)) // s has no more units than bytes
	return n
}

// prefixFitUpTo is prefixFit for a caller that keeps at most the first
// units UTF-16 units of s: cutUTF16(s[:n], units) is cutUTF16 of
// prefixFit's prefix. It stops reading once the prefix is known to hold
// those units, and read says how many bytes of s it read. Without that
// bound, splitting a text into parts read all the rest of it for each
// part: a long text without spaces took time quadratic in its length.
func prefixFitUpTo(s string, w float64, lines int, para bool, units int) (n, read int) {
	if lines < 1 {
		return 0, 0
	}
	per := perLine(w)
	all := per * lines // a word wider than this does not fit, wherever it starts
	used := 0
	n = 1
	brk, blank := 0, 0 // after the last line break, and empty line, in the last third
	word, wl := -1, 0
	// place puts the word just read on its line and reports whether the
	// text up to it still fits.
	place := func() bool {
		switch {
		case used == 0:
		case used+1+wl <= per:
			used++
		default:
			n++
			used = 0
		}
		for wl > per {
			n++
			wl -= per
		}
		used += wl
		return n <= lines
	}
	// cut ends the prefix before a word that does not fit, or before a
	// line break past the last line.
	cut := func(at int, word bool) int {
		if at == 0 && word {
			return widthCut(s, per*lines)
		}
		switch {
		case !para:
		case blank > 0:
			return blank
		case brk > 0:
			return brk
		}
		return at
	}
	// stop is where the first units units end, once the loop is there;
	// settled reports whether a cut from here on ends at stop or past
	// it: what a para cut goes back to, if anything, is past it too.
	stop, u := len(s), 0
	settled := func() bool {
		switch {
		case !para:
		case blank > 0:
			return blank >= stop
		case brk > 0:
			return brk >= stop
		}
		return true
	}
	for i, r := range s {
		if stop == len(s) {
			u++
			if r > 0xffff { // two UTF-16 units
				u++
			}
			if u > units {
				stop = i
			}
		}
		if i >= stop && (word < 0 || word >= stop) && settled() {
			// Whatever follows, the prefix holds the first units units.
			return i, i + 1
		}
		if !isSpace(r) {
			if word < 0 {
				word, wl = i, 0
			}
			wl += runeWidth(r)
			if wl > all {
				// The word does not fit, however it ends: placing it
				// when it does would cut it here.
				return cut(word, true), i + 1
			}
			continue
		}
		if word >= 0 {
			if !place() {
				return cut(word, true), i + 1
			}
			word = -1
		}
		if r == '\n' {
			if n+1 > lines {
				return cut(i, false), i + 1
			}
			n, used = n+1, 0
			if 3*n >= 2*lines {
				brk = i + 1
				if i > 0 && s[i-1] == '\n' {
					blank = i + 1
				}
			}
		}
	}
	if word >= 0 && !place() {
		return cut(word, true), len(s)
	}
	return len(s), len(s)
}

// widthCut is the length in bytes of the longest prefix of s at most w
// wide, and of its first character at least.
func widthCut(s string, w int) int {
	used := 0
	for i, r := range s {
		used += runeWidth(r)
		if used > w && i > 0 {
			return i
		}
	}
	return len(s)
}

// readPartMax bounds a part of the Read sheet in UTF-16 units, well
// within every backend's cell, whatever its lines: a run of spaces takes
// one line.
const readPartMax = 8000

// readChunks splits s into the parts of the Read sheet, each what a row
// of its text column shows; the parts joined are s.
func readChunks(s string) []string {
	out, _ := readChunksRead(s)
	return out
}

// readChunksRead is readChunks, and how many bytes of s it read in all:
// a bounded number of times its length, whatever its shape.
func readChunksRead(s string) (out []string, read int) {
	for s != "" {
		n, r := prefixFitUpTo(s, readWidth, maxLines, true, readPartMax)
		n = len(cutUTF16(s[:n], readPartMax))
		read += r + n
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out, read
}

// shown is what a cell shows of a text over its budget.
type shown struct {
	text string // the part, "…" at the cut, and the line that says where to read it all
	from int    // where that line starts, in bytes
	part int    // characters of the text shown
	// lines is countLines of text, with the lines fitText was given as
	// its limit: what the row's height needs for it.
	lines int
}

// fitText fits s into lines lines of a column w wide and at most limit
// UTF-16 units. A text that fits is returned whole (ok false). Otherwise
// the cell shows its head or its tail, cut before or after a word, "…"
// where it is cut, and a last line made by label from the characters
// shown.
func fitText(s string, w float64, lines, limit int, tail bool, label func(part int) string) (shown, bool) {
	if len(s) <= limit || utf16Len(s) <= limit {
		if n := countLines(s, w, lines); n <= lines {
			return shown{text: s, lines: n}, false
		}
	}
	total := utf8.RuneCountInString(s)
	// The line is made again with the count shown, which has no more
	// digits than the total.
	room := lines - countLines(label(total), w, lines)
	for ; ; room-- {
		var part string
		switch {
		case room < 1:
		case tail:
			part = strings.TrimLeftFunc(s[suffixFit(s, w, room):], unicode.IsSpace)
		default:
			part = strings.TrimRightFunc(s[:prefixFit(s, w, room, false)], unicode.IsSpace)
		}
		part = fitUTF16(part, limit-utf16Len(label(total))-4, tail)
		var text string
		switch {
		case part == "":
			text = "…\n"
		case tail:
			text = "… " + part + "\n"
		default:
			text = part + " …\n"
		}
		n := utf8.RuneCountInString(part)
		out := shown{text: text + label(n), from: len(text), part: n}
		if out.lines = countLines(out.text, w, lines); room < 1 || out.lines <= lines {
			return out, true
		}
	}
}

// suffixFit is where the shortest suffix of s starts, at a word, that
// takes at most lines lines of a column w wide after "… ".
func suffixFit(s string, w float64, lines int) int {
	fits := func(at int) bool { return countLines("… "+s[at:], w, lines) <= lines }
	// No suffix of more characters than the lines hold fits.
	lo := len(s)
	for k := charBudget(w, 1) / maxLines * lines; k > 0 && lo > 0; k-- {
		_, size := utf8.DecodeLastRuneInString(s[:lo])
		lo -= size
	}
	hi := len(s)
	for lo < hi {
		mid := lo + (hi-lo)/2
		for mid < hi && !utf8.RuneStart(s[mid]) {
			mid++
		}
		if mid == hi {
			break
		}
		if fits(mid) {
			hi = mid
		} else {
			_, size := utf8.DecodeRuneInString(s[mid:])
			lo = mid + size
		}
	}
	// Start at a word: move past the rest of a word cut in two.
	at := hi
	if at > 0 && at < len(s) {
		prev, _ := utf8.DecodeLastRuneInString(s[:at])
		if !unicode.IsSpace(prev) {
			if i := strings.IndexFunc(s[at:], unicode.IsSpace); i >= 0 {
				at += i
			} else {
				at = len(s)
			}
		}
	}
	return at
}

// fitUTF16 shortens a part to at most n UTF-16 units, keeping its start
// (or, for a tail, its end).
func fitUTF16(s string, n int, tail bool) string {
	if len(s) <= n || utf16Len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	if !tail {
		return cutUTF16(s, n)
	}
	used, i := 0, len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		w := 1
		if r > 0xffff {
			w = 2
		}
		if used+w > n {
			break
		}
		used += w
		i -= size
	}
	return s[i:]
}

// partCount says how many parts: "1 part", "8 parts".
func partCount(n int) string {
	if n == 1 {
		return "1 part"
	}
	return strconv.Itoa(n) + " parts"
}

// thousands writes n with commas: 28,342.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// readLabel is the last line of a cell shown in part: where its text is
// in full, and how much of it the cell shows.
func readLabel(row, part, total int, tail bool) string {
	which := "first"
	if tail {
		which = "last"
	}
	return fmt.Sprintf("→ read in full: sheet %s, row %d, or click the ID (the %s %s of %s characters are shown here)",
		backend.SheetRead, row, which, thousands(part), thousands(total))
}

// longState follows the first pass over the Annotate sheet's rows, which
// meets the cut texts in the order the sheets show them: where the
// current item's rows start, and where the next cut text goes on the Read
// sheet.
type longState struct {
	item  *item
	rows  int // Annotate rows before the current item's, header excluded
	read  int // Read rows used, the title row excluded
	links int // cut texts linked so far (backend.MaxLinks a sheet)
	// rowLink is the Read row of the first linked text of the row being
	// made, which its ID cell links to; 0 for none.
	rowLink int
	// texts gathers the cut texts of the current item, for the Read
	// sheet (see rowSpool).
	texts []readText
}

// readText is a cut text as the Read sheet shows it.
type readText struct {
	// title is its header; for an annotation workbook, made when the
	// Read sheet is written from the ID of its item (or, of a row per
	// element, its unit), its column and total.
	title      string
	item, unit string
	total      int
	sheet      string // the sheet of its cell
	at         int    // its header's row on the Read sheet
	row        int    // its cell on the Annotate sheet
	col        int
	parts      []string
	link       bool
}

// annotateRow is the Annotate row of row k of an item. Every item's rows
// show context on their first row, so an item that is not the last one
// seen is the next.
func (b *builder) annotateRow(it *item, k int) int {
	if it != b.long.item {
		if b.long.item != nil {
			b.long.rows += b.rowCount(b.long.item)
		}
		b.long.item = it
	}
	return 2 + b.long.rows + k
}

// contextCell is the value of the context cell in column col on row k of
// an item: the text whole, or, over the cell's budget, the part the
// column's show asks for and a link to the Read sheet, which gets the
// whole text; and the lines it takes, as blockLines counts them for a
// block's, and lines for a row's own.
func (b *builder) contextCell(it *item, cx *templates.Context, col, k int, text string) (any, *backend.Link, int) {
	full := b.cleanContext(it, cx.Path, text)
	row := b.annotateRow(it, k)
	rows := 1
	if b.t.Rows.Per == templates.PerBlock && b.t.Rows.AnswerRows > 1 {
		rows = b.t.Rows.AnswerRows
	}
	at := 2 + b.long.read
	tail := cx.Show == templates.ShowTail
	sh, parts, cut := fitForRead(full, b.cols[col].Width, rows*maxLines, b.opt.CellLimit, tail, at)
	if !cut {
		return sh.text, nil, sh.lines
	}
	total := utf8.RuneCountInString(full)
	b.long.read += 1 + len(parts)
	if n := utf16Len(full); n > b.opt.CellLimit {
		which := "first"
		if tail {
			which = "last"
		}
		b.warn(it, cx.Path, records.ErrTruncated, "the text has %d characters, more than a cell holds (%d); the cell shows the %s %d with a marker, and sheet %s holds all of it from row %d",
			n, b.opt.CellLimit, which, sh.part, backend.SheetRead, at)
	}
	link := b.long.links < linkCap
	b.long.links++
	t := readText{item: it.id, total: total, sheet: backend.SheetAnnotate, at: at, row: row, col: col, parts: parts, link: link}
	if b.t.Rows.Per == templates.PerElement {
		t.unit = it.units[k]
	}
	b.long.texts = append(b.long.texts, t)
	if !link {
		return sh.text, nil, sh.lines
	}
	if b.long.rowLink == 0 {
		b.long.rowLink = at
	}
	return sh.text, &backend.Link{Sheet: backend.SheetRead, Row: at, Col: 0, From: sh.from}, sh.lines
}

// fitForRead fits a text into lines lines of a column w wide and at most
// limit UTF-16 units, its Read sheet header to be at row at: whole (cut
// false), or shown in part, with its parts for the Read sheet.
func fitForRead(full string, w float64, lines, limit int, tail bool, at int) (sh shown, parts []string, cut bool) {
	// The count is needed only for the label of a text that is cut.
	total := -1
	sh, cut = fitText(full, w, lines, limit, tail, func(part int) string {
		if total < 0 {
			total = utf8.RuneCountInString(full)
		}
		return readLabel(at, part, total, tail)
	})
	if cut {
		parts = readChunks(full)
	}
	return sh, parts, cut
}

// readTitle is the header of a text on the Read sheet.
func readTitle(id, column string, total, parts int) string {
	return fmt.Sprintf("%s — %s — %s characters in %s", id, column, thousands(total), partCount(parts))
}

// ReadSheet gathers, for a workbook other than an annotation workbook
// (an adjudication's), the texts its cells show only in part, and makes
// the Read sheet that holds them whole, as an annotation workbook's does.
// Fit every cell in the order of the sheets and their rows, then take
// Sheet.
type ReadSheet struct {
	limit int
	read  int // Read rows used, the title row excluded
	links int
	texts []readText
}

// NewReadSheet starts a Read sheet for cells of at most limit UTF-16
// units.
func NewReadSheet(limit int) *ReadSheet { return &ReadSheet{limit: limit} }

// Fit is what a cell of a column width characters wide, at row and col
// of a sheet, shows of a text: the text whole, or, over what the tallest
// row shows, its head (its tail with tail) and the line that says where
// the Read sheet holds it, in which case readRow is that row, for the
// row's ID cell to link to. id and column name the text there.
func (r *ReadSheet) Fit(sheet string, row, col int, width float64, text, id, column string, tail bool) (value string, readRow int) {
	full, _ := Clean(text, 0)
	at := 2 + r.read
	sh, parts, cut := fitForRead(full, width, maxLines, r.limit, tail, at)
	if !cut {
		return sh.text, 0
	}
	r.read += 1 + len(parts)
	link := r.links < linkCap
	r.links++
	r.texts = append(r.texts, readText{
		title: readTitle(id, column, utf8.RuneCountInString(full), len(parts)),
		sheet: sheet, at: at, row: row, col: col, parts: parts, link: link,
	})
	if !link {
		return sh.text, 0
	}
	return sh.text, at
}

// Sheet is the Read sheet, or nil when every text was shown whole.
func (r *ReadSheet) Sheet() *backend.Sheet {
	if r.read == 0 {
		return nil
	}
	texts := r.texts
	return readSheetOf(1+r.read, readIntroOther, func(emit func(backend.Row) error) error {
		for _, t := range texts {
			if err := emitRead(t, emit); err != nil {
				return err
			}
		}
		return nil
	})
}

// readIntroOther is the first row of a Read sheet made by ReadSheet.
const readIntroOther = "The full text of every context that its cell shows only in part. " +
	"Each text starts at a grey row that names it; the link beside it goes back to its cell " +
	"(to the row it was written in: if the sheet was sorted since, find the ID there)."

// takeRowLink is the Read row of the first linked text of the row just
// made, which its ID cell links to, or 0; and starts the next row.
func (b *builder) takeRowLink() int {
	at := b.long.rowLink
	b.long.rowLink = 0
	return at
}

// linkID links the ID cell of a row to the first of its texts on the Read
// sheet, at row at (0 for none): a link every backend shows.
func (b *builder) linkID(row backend.Row, at int) {
	if at == 0 {
		return
	}
	for i, c := range b.cols {
		if c.Role == templates.RoleID {
			if _, ok := row.Cells[i].Value.(string); ok {
				row.Cells[i].Link = &backend.Link{Sheet: backend.SheetRead, Row: at}
			}
		}
	}
}

// cleanContext makes a context text safe for cells, as cleanText does,
// but whole: the Read sheet holds it in parts, each well within a cell.
func (b *builder) cleanContext(it *item, field, s string) string {
	s, r := Clean(s, 0)
	if r.Invalid > 0 || r.Controls > 0 {
		b.warn(it, field, records.ErrReplaced, "%d control character(s) and %d invalid byte(s) are shown as visible symbols (␀…␟, \uFFFD)", r.Controls, r.Invalid)
	}
	return s
}

// blockLines is how many lines the first row of a block needs, its
// context merged over n rows: as lines does, counting up to the n rows'
// worth that the context's budget allows. known, when not nil, holds the
// count of each cell already counted so, and -1 for the others.
func (b *builder) blockLines(cells []backend.Cell, n int, known []int) int {
	lines := 1
	for i, c := range cells {
		s, ok := c.Value.(string)
		if !ok || !c.Style.Wrap || s == "" {
			continue
		}
		if known != nil && known[i] >= 0 {
			lines = max(lines, known[i])
			continue
		}
		lines = max(lines, countLines(s, b.cols[i].Width, n*maxLines))
	}
	return lines
}

// Styles of the Read sheet.
var (
	styleReadTitle = backend.Style{Bold: true, Wrap: true}
	styleReadHead  = backend.Style{Bold: true, Fill: fillHeader, Wrap: true}
	styleReadBack  = backend.Style{Fill: fillHeader, Color: "0563C1", Wrap: true}
	styleReadPart  = backend.Style{Color: fontHint}
)

// readIntro is the Read sheet's first row.
const readIntro = "The full text of every context that its cell on the Annotate sheet shows only in part. " +
	"Each text starts at a grey row that names its ID and column; the link beside it goes back to its cell " +
	"(to the row it was written in: if the Annotate sheet was sorted since, find the ID there)."

// readSheet is the Read sheet, or nil when every context fits its cell.
// Its texts are those the first pass kept (see rowSpool).
func (b *builder) readSheet() *backend.Sheet {
	if b.long.read == 0 {
		return nil
	}
	return readSheetOf(1+b.long.read, readIntro, func(emit func(backend.Row) error) error {
		return b.spool.eachText(func(t *readText) error {
			b.titleRead(t)
			return emitRead(*t, emit)
		})
	})
}

// titleRead makes the header of a cut text of the Annotate sheet, with
// the ID the workbook shows.
func (b *builder) titleRead(t *readText) {
	id := b.shownItem(t.item)
	if b.t.Rows.Per == templates.PerElement {
		id = b.shownUnit(t.unit)
	}
	t.title = readTitle(id, b.cols[t.col].Header, t.total, len(t.parts))
}

// readSheetOf is a Read sheet of rows rows: intro, then what body emits.
func readSheetOf(rows int, intro string, body func(emit func(backend.Row) error) error) *backend.Sheet {
	return &backend.Sheet{
		Name: backend.SheetRead,
		Columns: []backend.Column{
			{Width: readWidth, Style: styleContext},
			{Width: readTagWidth, Style: backend.Style{Wrap: true}},
		},
		RowCount: rows,
		Protect:  &backend.Protection{FormatColumns: true, FormatRows: true},
		FitWidth: true,
		// The styles emitRead gives, so that the rows are read once.
		Facts: &backend.RowFacts{Styles: []backend.Style{styleReadTitle, styleReadHead, styleReadBack, styleContext, styleReadPart}},
		Rows: func(emit func(backend.Row) error) error {
			head := backend.Row{Cells: []backend.Cell{{Value: intro, Style: styleReadTitle}}}
			head.Height = lineHeight(countLines(intro, readWidth, maxLines))
			if err := emit(head); err != nil {
				return err
			}
			return body(emit)
		},
	}
}

// emitRead emits the rows of one text on the Read sheet: its header, with
// the way back to its cell, and its parts.
func emitRead(t readText, emit func(backend.Row) error) error {
	back := backend.Cell{Value: fmt.Sprintf("← back to %s, row %d", t.sheet, t.row), Style: styleReadBack}
	if t.link {
		back.Link = &backend.Link{Sheet: t.sheet, Row: t.row, Col: t.col}
	}
	head := backend.Row{Cells: []backend.Cell{{Value: t.title, Style: styleReadHead}, back}}
	head.Height = lineHeight(max(countLines(t.title, readWidth, maxLines), countLines(back.Value.(string), readTagWidth, maxLines)))
	if err := emit(head); err != nil {
		return err
	}
	for i, p := range t.parts {
		r := backend.Row{Cells: []backend.Cell{
			{Value: p, Style: styleContext},
			{Value: fmt.Sprintf("part %d of %d", i+1, len(t.parts)), Style: styleReadPart},
		}}
		r.Height = lineHeight(countLines(p, readWidth, maxLines))
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}

// ShowsPart reports whether got is how generate shows text cut to fit its
// cell: the head or tail of text with "…" at the cut, and the last line
// readLabel makes for it. Pull compares a span source's cell with it, so
// that a long text the cell shows in part is not taken for an edit.
func ShowsPart(got, text string, tail bool) bool {
	body, label, ok := cutLast(got, "\n")
	if !ok {
		return false
	}
	var part string
	switch {
	case body == "…":
	case tail:
		part, ok = strings.CutPrefix(body, "… ")
		ok = ok && strings.HasSuffix(text, part)
	default:
		part, ok = strings.CutSuffix(body, " …")
		ok = ok && strings.HasPrefix(text, part)
	}
	if !ok {
		return false
	}
	rest, found := strings.CutPrefix(label, fmt.Sprintf("→ read in full: sheet %s, row ", backend.SheetRead))
	digits := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if !found || digits <= 0 {
		return false
	}
	row, err := strconv.Atoi(rest[:digits])
	return err == nil && label == readLabel(row, utf8.RuneCountInString(part), utf8.RuneCountInString(text), tail)
}

// cutLast cuts s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

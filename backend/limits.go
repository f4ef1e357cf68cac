package backend

// Kinds of backend, as a Grid and a pulled record's source name them.
const (
	KindXLSX    = "xlsx"
	KindGSheets = "gsheets"
)

// Cell text limits of the backends, counted in UTF-16 code units as the
// applications count them.
const (
	XLSXCellLimit   = 32767
	SheetsCellLimit = 50000
)

// MaxInlineList is the longest list, in characters with its separators,
// that a spreadsheet takes inline in a validation (Excel's limit). Every
// backend keeps to it, so that every backend offers the same list the same
// way (see Validation.Inline).
const MaxInlineList = 255

// MaxLinks is the most hyperlinks a sheet holds (Excel's limit); a plan
// links no more cells of a sheet than that.
const MaxLinks = 65530

// TruncationMarker ends a cell whose text was cut to fit its backend's
// cell limit; %d and %d are the characters shown and the characters in
// full.
const TruncationMarker = " [… cut by annosheet: %d of %d characters shown; the full text is in the input file]"

// Limits are what a backend's application accepts: the plan a backend is
// given must keep to them, and the backend shortens what it may shorten
// (prompts) to them.
type Limits struct {
	// Kind names the backend: KindXLSX or KindGSheets.
	Kind string
	// CellChars is the longest text a cell holds, in UTF-16 code units.
	CellChars int
	// InlineList is the longest list, in characters with its separators,
	// that a validation carries inline; longer lists point at a range.
	InlineList int
	// PromptTitle and Prompt are the longest title and text of a
	// validation's input prompt and error message; 0 is no limit.
	PromptTitle, Prompt int
}

// The limits of each backend.
var (
	// XLSX is Excel's: its cell limit, and the limits of its
	// data-validation dialog.
	XLSX = Limits{Kind: KindXLSX, CellChars: XLSXCellLimit, InlineList: MaxInlineList, PromptTitle: 32, Prompt: 255}
	// GSheets is Google Sheets': a larger cell, and help text of any
	// length.
	GSheets = Limits{Kind: KindGSheets, CellChars: SheetsCellLimit, InlineList: MaxInlineList}
)

// LimitsOf returns the limits of the backend of a kind, and whether the
// kind is known.
func LimitsOf(kind string) (Limits, bool) {
	switch kind {
	case KindXLSX:
		return XLSX, true
	case KindGSheets:
		return GSheets, true
	}
	return Limits{}, false
}

package xlsx

import (
	"errors"
	"path/filepath"
	"strings"
)

// Errors that a caller tells apart with errors.Is. Every error of Open
// also names the file as the caller gave it and says what to do.
var (
	// ErrNotSpreadsheet: the file is no spreadsheet at all (its name or its
	// bytes say so): a lock file, a text file, an empty file.
	ErrNotSpreadsheet = errors.New("not a spreadsheet file")
	// ErrUnsupported: a spreadsheet that annosheet cannot read, whatever
	// is installed (an Apple Numbers file, a CSV export, an encrypted
	// workbook); the message says how to save it instead.
	ErrUnsupported = errors.New("a spreadsheet format annosheet cannot read")
	// ErrNeedsConversion: a spreadsheet that annosheet reads through
	// LibreOffice (.ods, .xls …), and LibreOffice is not installed.
	ErrNeedsConversion = errors.New("needs LibreOffice to be read")
	// ErrConversion: LibreOffice ran but gave no workbook.
	ErrConversion = errors.New("LibreOffice could not convert it")
	// ErrDamaged: the file has a workbook's container but cannot be read
	// (cut short in a transfer, say). The cause is wrapped too.
	ErrDamaged = errors.New("the workbook is damaged")
	// ErrEncrypted: a workbook protected by a password to open. It is an
	// ErrUnsupported too.
	ErrEncrypted error = narrower{"an encrypted workbook", ErrUnsupported}
)

// narrower is a sentinel error that is also a broader one.
type narrower struct {
	msg   string
	wider error
}

func (e narrower) Error() string { return e.msg }
func (e narrower) Unwrap() error { return e.wider }

// Kind says what Open can make of a file, judged by its name alone.
type Kind int

const (
	// NotSpreadsheet is any file that is no spreadsheet: lock files an
	// application leaves beside an open workbook (~$book.xlsx,
	// .~lock.book.ods#), hidden files, backups and other documents. A
	// folder pull passes over them.
	NotSpreadsheet Kind = iota
	// Workbook is an Office Open XML workbook, read directly: .xlsx, and
	// .xlsm (its macros are never run).
	Workbook
	// Converted is a spreadsheet read through LibreOffice when it is
	// installed: .ods, .fods, .xls, .xlsb.
	Converted
	// Unreadable is a spreadsheet file that annosheet cannot read, such as
	// .numbers or .csv; Classify says why.
	Unreadable
)

func (k Kind) String() string {
	switch k {
	case Workbook:
		return "workbook"
	case Converted:
		return "converted"
	case Unreadable:
		return "unreadable"
	}
	return "not a spreadsheet"
}

// Readable reports whether Open reads files of this kind (through
// LibreOffice for Converted).
func (k Kind) Readable() bool { return k == Workbook || k == Converted }

// save is the advice for every spreadsheet annosheet cannot read.
const save = "open it, save it as .xlsx (Excel Workbook) and pull again"

// unreadable lists spreadsheet files that are no workbook annosheet can
// read, with why.
var unreadable = map[string]string{
	".numbers": "an Apple Numbers file: in Numbers choose File > Export To > Excel, and pull the .xlsx",
	".csv":     "a CSV file holds one sheet without the workbook's metadata sheet: pull the workbook itself, saved as .xlsx (Excel Workbook)",
	".tsv":     "a tab-separated text file holds one sheet without the workbook's metadata sheet: pull the workbook itself, saved as .xlsx (Excel Workbook)",
	".gsheet":  "a shortcut to a Google spreadsheet, not the spreadsheet: pull the spreadsheet's link instead",
	".xltx":    "an Excel template, not a workbook: " + save,
	".xltm":    "an Excel template, not a workbook: " + save,
	".xlt":     "an Excel template, not a workbook: " + save,
	".ots":     "a LibreOffice template, not a spreadsheet: " + save,
	".xlw":     "an old Excel format: " + save,
	".wk1":     "a Lotus 1-2-3 file: " + save,
	".wks":     "a Works or Lotus file: " + save,
	".et":      "a WPS Spreadsheets file: " + save,
	".sxc":     "an old OpenOffice file: " + save,
}

// Classify tells by a file's name whether Open reads it, so that a caller
// listing a folder can say of every spreadsheet it did not read why. For
// Unreadable and NotSpreadsheet, why says what the file is; for the
// readable kinds it is empty. It never looks at the file: a file with a
// readable name may still turn out not to be a workbook when opened.
func Classify(name string) (k Kind, why string) {
	base := filepath.Base(name)
	ext := strings.ToLower(filepath.Ext(base))
	switch {
	case strings.HasPrefix(base, "~$"):
		return NotSpreadsheet, "a lock file Excel keeps while the workbook is open"
	case strings.HasPrefix(base, ".~lock."):
		return NotSpreadsheet, "a lock file LibreOffice keeps while the workbook is open"
	case strings.HasPrefix(base, "."):
		return NotSpreadsheet, "a hidden file"
	}
	switch ext {
	case ".xlsx", ".xlsm":
		return Workbook, ""
	case ".ods", ".fods", ".xls", ".xlsb":
		return Converted, ""
	}
	if why, ok := unreadable[ext]; ok {
		return Unreadable, why
	}
	if ext == "" {
		return NotSpreadsheet, "a file without an extension"
	}
	return NotSpreadsheet, "not a spreadsheet (" + ext + ")"
}

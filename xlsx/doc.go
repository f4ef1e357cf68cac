// Package xlsx is the XLSX backend: it renders a backend.Plan as an Excel
// workbook, excelize laying out its structure while the rows are written
// straight into the file and deflated on all cores, and reads a filled workbook
// back into a grid for pull with a streaming reader of its own, bounded
// by documented budgets (MaxCellBytes and the others), that reports any
// damage as an error.
//
//	res, err := layout.Build(ctx, tmpl, src, layout.Options{Batch: "b01"})
//	if err != nil {
//		return err
//	}
//	defer res.Close()
//	err = xlsx.Write(res.Plan, file, xlsx.WriteOptions{})
//
// It knows nothing about templates: everything it writes is in the plan.
//
// # Formats read
//
// Open reads .xlsx and .xlsm workbooks directly (macros are never run).
// Annotators also return what their application saves by default, so
// .ods, .fods, .xls and .xlsb files are read too, through LibreOffice
// (soffice or libreoffice on PATH): it converts a copy to .xlsx in a
// temporary folder, with a profile of its own and a timeout, and the grid
// still bears the returned file's name. Without LibreOffice such a file
// gives ErrNeedsConversion. Other spreadsheet files (.numbers, .csv …) give
// ErrUnsupported, and files that are no spreadsheet ErrNotSpreadsheet;
// every error names the file and says what to do. The format is judged by
// the file's first bytes as well as its name.
//
// Classify tells by name alone which files of a folder to read, which are
// spreadsheets that cannot be read (and why), and which to pass over; its
// example shows a folder pull's use.
package xlsx

package input

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// Options say how input files are read beside what the template says.
type Options struct {
	// Format, when set, is the format every file is read in, whatever
	// the template and the files' names say (generate --input-format).
	Format string
	// Sheet is the sheet of a spreadsheet input to read; "" for its
	// first (generate --input-sheet).
	Sheet string
}

// Formats are the input formats a template or Options may name.
var Formats = []string{"jsonl", "json", "csv", "tsv", "parquet", "xlsx", "factgenie", "auto"}

// tableFormats are read by a reader of tables, one column a field.
var tableFormats = map[string]func(name string, opt tableOptions, index *int, fn func(*layout.Record) error) error{
	"csv": func(name string, opt tableOptions, index *int, fn func(*layout.Record) error) error {
		return eachCSV(name, ',', opt, index, fn)
	},
	"tsv": func(name string, opt tableOptions, index *int, fn func(*layout.Record) error) error {
		return eachCSV(name, '\t', opt, index, fn)
	},
	"xlsx":    eachXLSX,
	"parquet": eachParquet,
}

// byExtension are the formats a file's extension names.
var byExtension = map[string]string{".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".xlsx": "xlsx", ".xlsm": "xlsx"}

// FormatOf is the format a file is read in: opt.Format when set; else the
// template's, except that a template reading JSON Lines (as every
// built-in does) reads a .csv, .tsv, .parquet or .xlsx file as such.
func FormatOf(t *templates.Template, opt Options, path string) string {
	if opt.Format != "" {
		return opt.Format
	}
	f := t.Input.Format
	if f == "" || f == "jsonl" || f == "auto" {
		if ext, ok := byExtension[strings.ToLower(filepath.Ext(path))]; ok {
			return ext
		}
	}
	return f
}

// OpenFor opens the input files of template t: JSON, JSON Lines and
// factgenie folders as Open does, tables (CSV, TSV, Parquet, a
// spreadsheet's sheet) a row a record, each column a field, and the
// columns t reads as lists or objects decoded from their JSON text (see
// templates.Template.Fields).
func OpenFor(ctx context.Context, t *templates.Template, paths []string, opt Options) (layout.Source, error) {
	if opt.Format != "" && !slices.Contains(Formats, opt.Format) {
		return nil, fmt.Errorf("input format %q: use one of %s", opt.Format, strings.Join(Formats, ", "))
	}
	var tables []string
	for _, p := range paths {
		if _, ok := tableFormats[FormatOf(t, opt, p)]; ok {
			tables = append(tables, p)
		} else if f := FormatOf(t, opt, p); f == "csv" || f == "tsv" || f == "parquet" || f == "xlsx" {
			return nil, fmt.Errorf("input %s: the %s format is not read yet", p, f)
		}
	}
	if len(tables) == 0 {
		format := t.Input.Format
		if opt.Format != "" {
			format = opt.Format
		}
		return OpenContext(ctx, format, paths)
	}
	if len(tables) != len(paths) {
		return nil, fmt.Errorf("input: %s and %s are not in one format: give the inputs of a study in one format", tables[0], firstNot(paths, tables))
	}
	src, err := OpenContext(ctx, "jsonl", paths) // the files' checks: there, regular
	if err != nil {
		return nil, err
	}
	js := src.(*jsonSource)
	read, nested := t.Fields()
	for i := range js.files {
		js.files[i].format = FormatOf(t, opt, js.files[i].path)
	}
	js.table = tableOptions{limit: js.limit, nested: nested, needed: read, sheet: opt.Sheet}
	return js, nil
}

func firstNot(all, some []string) string {
	for _, p := range all {
		if !slices.Contains(some, p) {
			return p
		}
	}
	return ""
}

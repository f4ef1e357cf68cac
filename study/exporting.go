package study

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
)

// perAnnotator stands, in the path a native file is written to, for the
// ID of each annotator whose file it is.
const perAnnotator = "{annotator}"

// ExportSource says how an export reads its one source. A study's
// manifest or folder (or any .json file, taken for a manifest) is the
// study, pulled as it is: files and man are nil. Any other path is a file
// of records, whatever its name (files holds it), read with the study's
// manifest at manifestPath when one is given.
func ExportSource(path, manifestPath string) (files []string, man *Manifest, err error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() || filepath.Base(path) == manifest.FileName || strings.EqualFold(filepath.Ext(path), ".json") {
		return nil, nil, nil
	}
	if manifestPath != "" {
		if man, err = OpenManifest(manifestPath); err != nil {
			return nil, nil, err
		}
	}
	return []string{path}, man, nil
}

// ExportOptions say what Export prepares.
type ExportOptions struct {
	NativeOptions
	// Out is the file the native file is to be written to, "" when it is
	// not written to a file; {annotator} in it stands for each
	// annotator's ID, a file per annotator (see PerAnnotator).
	Out string
	// Force lets a file at Out be replaced.
	Force bool
}

// PerAnnotator reports whether Out names a file per annotator.
func (opt ExportOptions) PerAnnotator() bool {
	return strings.Contains(opt.Out, perAnnotator)
}

// Export prepares the native file of the records loaded (man is the
// study's manifest, when there is one): it selects the records and checks
// what the file is made from (PrepareNative), and refuses a file at Out
// unless Force, every problem found at once and before anything is
// written; then it reads the study's inputs (ReadInputs). export.Native
// makes the file from what it returns.
//
// What is returned, with an error too, holds what is to be said all the
// same: only Changed when the checks failed; the selection and its
// Warnings as well when the inputs could not be read.
func Export(l *records.Loaded, man *Manifest, opt ExportOptions) (*Native, error) {
	nat, err := PrepareNative(l, man, opt.NativeOptions)
	var problems []error
	if err != nil {
		problems = append(problems, err)
	}
	if out := opt.Out; out != "" && !opt.PerAnnotator() && !opt.Force {
		// Each annotator's file is checked once the files are known.
		if _, err := os.Lstat(out); err == nil {
			problems = append(problems, fmt.Errorf("%s: %w", out, atomicfile.ErrExists))
		}
	}
	if len(problems) > 0 {
		return &Native{Changed: nat.Changed}, errors.Join(problems...)
	}
	return nat, nat.ReadInputs(l.Origins)
}

// NativeLeftOut counts what a native file leaves out, and what it keeps
// all the same.
type NativeLeftOut struct {
	// Partial, Empty, Missing and Unreadable count the units left out,
	// by status.
	Partial, Empty, Missing, Unreadable int
	// WithErrors counts the units kept although they have errors
	// (AllowProblems); Duplicates the records repeated identically, each
	// kept once.
	WithErrors, Duplicates int
}

// LeftOut counts what the native file leaves out of the selection; dups
// is the number of records repeated identically that loading kept once.
func (n *Native) LeftOut(dups int) NativeLeftOut {
	sel := n.Selection
	out := NativeLeftOut{Partial: sel.Partial, Empty: sel.Empty, Missing: sel.Missing, Unreadable: sel.Unreadable, WithErrors: sel.WithErrors, Duplicates: dups}
	if n.t.Export != nil && n.t.Export.Include != "all" {
		// Units nobody answered are not in the native file either.
		for _, r := range sel.Records {
			if r.Status == records.StatusEmpty {
				out.Empty++
			}
		}
	}
	return out
}

// Formats of an analysis table's file.
const (
	TableCSV     = "csv"
	TableParquet = "parquet"
)

// TableFormat is the format an analysis table is written in: Parquet for
// a .parquet file, CSV for a .csv file or for out "" (no file); ok is
// false for any other file.
func TableFormat(out string) (format string, ok bool) {
	switch ext := strings.ToLower(filepath.Ext(out)); {
	case out == "" || ext == ".csv":
		return TableCSV, true
	case ext == ".parquet":
		return TableParquet, true
	}
	return "", false
}

// TableSource is what an analysis table of a study's records is made
// from (export.Long and export.Wide make it).
type TableSource struct {
	// Records are the annotators' records; Gold the gold set's, when
	// one is given.
	Records, Gold []*records.Annotation
	// Origins name where the records, the gold set's too, were read
	// from; Orders are the study's candidate orders.
	Origins records.Origins
	Orders  map[string][]string
}

// ExportTable gathers what the analysis table of the records loaded is
// made from: the study's candidate orders from its manifest (man, when
// there is one), and the gold set beside the records (gold, when given).
// Each annotator asked for must have a record (CheckAnnotators).
func ExportTable(l *records.Loaded, man *Manifest, gold *Gold, annotators []string) (*TableSource, error) {
	out := &TableSource{Records: l.Records, Origins: l.Origins}
	if man != nil {
		out.Orders = man.Orders
	}
	if gold != nil {
		out.Gold = gold.Records
		out.Origins = maps.Clone(l.Origins)
		if out.Origins == nil {
			out.Origins = records.Origins{}
		}
		maps.Copy(out.Origins, gold.Origins)
	}
	if err := CheckAnnotators(annotators, l.Records); err != nil {
		return nil, err
	}
	return out, nil
}

package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
)

// PullSources opens the sources and pulls them (Open, Pull). When every
// source was refused (Result.NothingRead), the result comes with
// ErrNothingRead: its problems say why.
func PullSources(ctx context.Context, sources []string, b Backends, opt PullOptions) (*Result, *Sources, error) {
	src, err := Open(sources, b)
	if err != nil {
		return nil, nil, err
	}
	res, err := Pull(ctx, src, opt)
	if err != nil {
		return nil, nil, err
	}
	if res.NothingRead(src) {
		return res, src, ErrNothingRead
	}
	return res, src, nil
}

// Pulled is what PullRecords read: a study's records, or an
// adjudication's gold set.
type Pulled struct {
	*Result
	// Gold is the gold set, when the sources were an adjudication.
	Gold *GoldSet
}

// PullRecords pulls the records the sources name: an adjudication (its
// folder, manifest or a workbook of it; see AdjudicationDir) gives its
// gold set (PullGold), anything else is pulled as a study
// (PullSources), ErrNothingRead coming with the result that says why.
func PullRecords(ctx context.Context, sources []string, b Backends, opt PullOptions) (*Pulled, error) {
	if dir, ok := AdjudicationDir(sources); ok {
		g, err := PullGold(ctx, dir, b, "")
		if err != nil {
			return nil, err
		}
		return &Pulled{Result: g.Result(), Gold: g}, nil
	}
	res, _, err := PullSources(ctx, sources, b, opt)
	if res == nil {
		return nil, err
	}
	return &Pulled{Result: res}, err
}

// PullOutput is where a pull's records and report go.
type PullOutput struct {
	// Out is the JSON Lines file of the records; "" writes them to the
	// writer Write is given.
	Out string
	// Report is the JSON file of the report (Result.Report); "" writes
	// none.
	Report string
	// Force replaces files that exist.
	Force bool
}

var (
	// ErrPullReads is wrapped, in an OptionError, when an output is a
	// workbook or a study's manifest: what a pull reads, and never
	// replaces, even with Force.
	ErrPullReads = errors.New("a workbook or a study's manifest, which a pull reads")
	// ErrSameOutput is wrapped, in an OptionError, when the records and
	// the report are one file.
	ErrSameOutput = errors.New("the records and the report are one file")
)

// Check refuses the outputs a pull cannot write, before anything is
// read rather than after a long pull (a path typed in the wrong place):
// an OptionError for option "out" or "report" that wraps ErrPullReads
// for a spreadsheet (as files tells them) or a study's manifest, or
// atomicfile.ErrExists for a file that exists, without Force; then one
// for "out" that wraps ErrSameOutput.
func (o PullOutput) Check(files Files) error {
	for _, f := range []struct{ option, path string }{{"out", o.Out}, {"report", o.Report}} {
		if err := o.writable(files, f.path); err != nil {
			return &OptionError{Option: f.option, Value: f.path, Err: err}
		}
	}
	if o.Out != "" && o.Report != "" && filepath.Clean(o.Out) == filepath.Clean(o.Report) {
		return &OptionError{Option: "out", Value: o.Out, Err: ErrSameOutput}
	}
	return nil
}

// writable says why a pull cannot write path, if it cannot.
func (o PullOutput) writable(files Files, path string) error {
	if path == "" {
		return nil
	}
	// A spreadsheet it cannot read is one still: a slip all the same.
	if ok, why := files.Readable(path); ok || why != "" || filepath.Base(path) == manifest.FileName {
		return ErrPullReads
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && !o.Force {
		return atomicfile.ErrExists
	}
	return nil
}

// Write writes the pull's records to Out (or to w, without one) and its
// report to Report, and counts them. A pull whose copies of a batch
// answer differently (Conflicts) is not written: the error wraps
// ErrCopiesDisagree.
func (o PullOutput) Write(w io.Writer, res *Result) (Counts, error) {
	if len(res.Conflicts) > 0 {
		return Counts{}, fmt.Errorf("%s %w (see above); keep only the current copy of each batch among the sources, then pull again", words.Count(len(res.Conflicts), "unit"), ErrCopiesDisagree)
	}
	write := func(w io.Writer) error { return records.Write(w, res.Records) }
	if o.Out == "" {
		if err := write(w); err != nil {
			return Counts{}, err
		}
	} else if err := atomicfile.Write(o.Out, o.Force, 0o644, write); err != nil {
		return Counts{}, fmt.Errorf("write %s: %w", o.Out, err)
	}
	if o.Report != "" {
		err := atomicfile.Write(o.Report, o.Force, 0o644, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(res.Report())
		})
		if err != nil {
			return Counts{}, fmt.Errorf("write %s: %w", o.Report, err)
		}
	}
	return res.Counts(), nil
}

// Result is the gold set as a pull's result: its records and problems,
// to write and count as a pull's.
func (g *GoldSet) Result() *Result {
	return &Result{Records: g.Records, Problems: g.Problems}
}

package study

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/internal/ojson"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrNoInputs is wrapped when the native file is asked for without the
// study's inputs, which it is made from: neither its manifest nor the
// inputs themselves were given.
var ErrNoInputs = errors.New("the native file needs the study's inputs")

// ErrNeedsManifest is wrapped when records can be exported only with the
// study's manifest: their template anonymises names, which only its key
// restores.
var ErrNeedsManifest = errors.New("the study's manifest is needed")

// ErrGivenInputChanged is wrapped when inputs given in place of the
// manifest's do not have the content the workbooks were made from.
var ErrGivenInputChanged = errors.New("not the content the workbooks were generated from")

// ErrSpanText is wrapped by the error of a span that does not stand in
// the study's text where it says.
var ErrSpanText = errors.New("not the study's text")

// NativeOptions say what ExportNative writes.
type NativeOptions struct {
	SelectOptions
	// Inputs are the study's inputs when given in place of the
	// manifest's; InputChanged exports with them even when their
	// content differs from what the workbooks were made from.
	Inputs       []string
	InputChanged bool
	// Annotators, when given, are the only annotators exported: each must
	// have a record (ErrNoSuchAnnotator).
	Annotators []string
}

// ErrNoSuchAnnotator is wrapped, in an OptionError, when an annotator
// asked for has no record.
var ErrNoSuchAnnotator = errors.New("no record is that annotator's")

// CheckAnnotators refuses the annotators asked for who have no record,
// each with the nearest IDs the records have.
func CheckAnnotators(asked []string, recs []*records.Annotation) error {
	var errs []error
	for _, a := range asked {
		if !slices.ContainsFunc(recs, func(r *records.Annotation) bool { return r.Annotator == a }) {
			errs = append(errs, &OptionError{Option: "annotators", Value: a, Err: fmt.Errorf("%w%s", ErrNoSuchAnnotator, AnnotatorHint(a, recs))})
		}
	}
	return errors.Join(errs...)
}

// Native is what the native file is made from: the records selected,
// the study's input records, and how the file is written.
type Native struct {
	Selection *Selection
	Items     []*layout.SourceItem
	// Style is the JSON style of the study's input, which the file keeps;
	// Orders the study's candidate orders, to put shuffled answers back.
	Style  ojson.Style
	Orders map[string][]string

	t      *templates.Template
	inputs []string
	read   input.Options // how the inputs are read, as generate read them
	keys   map[string]map[string]string
	// Changed are the inputs given that differ from what the workbooks
	// were made from, exported with as InputChanged says.
	Changed []string
	// Warnings name the gold units without answers, exported all the
	// same.
	Warnings []string
}

// PrepareNative selects what the template's native file is made from
// (export.Native writes it, once ReadInputs has read the study's input
// records: the manifest's inputs, or opt.Inputs). Everything that can be
// checked before any input is read is, and every problem found is
// returned at once, joined, with what was found so far (Changed, to be
// said all the same): the selection, the inputs, the key of anonymised
// names.
func PrepareNative(l *records.Loaded, man *Manifest, opt NativeOptions) (*Native, error) {
	t := l.Template
	out := &Native{}
	var problems []error
	sel, err := SelectForExport(l.Records, opt.SelectOptions)
	if err != nil {
		problems = append(problems, err)
	}
	out.Selection = sel
	inputs := opt.Inputs
	var keys map[string]map[string]string
	var orders map[string][]string
	if man != nil {
		keys, orders = man.Keys, man.Orders
		if len(inputs) == 0 {
			if inputs, err = man.InputPaths(); err != nil {
				problems = append(problems, err)
			}
		} else if changed := man.ChangedInputs(inputs); len(changed) > 0 {
			if !opt.InputChanged {
				problems = append(problems, fmt.Errorf("%s: %w, so offsets and records may not match the answers", strings.Join(changed, ", "), ErrGivenInputChanged))
			} else {
				out.Changed = changed
			}
		}
	}
	if len(inputs) == 0 && man == nil {
		problems = append(problems, ErrNoInputs)
	}
	if len(t.Anonymize) > 0 && keys == nil {
		problems = append(problems, fmt.Errorf("template %s anonymises names: %w to restore them", t.Name, ErrNeedsManifest))
	}
	if err := CheckAnnotators(opt.Annotators, l.Records); err != nil {
		problems = append(problems, err)
	}
	if len(problems) > 0 {
		return out, errors.Join(problems...)
	}
	if t.Export != nil && t.Export.Include == "all" {
		// A template that exports every unit writes the units of a gold
		// set nobody has completed too: each is named, never passed
		// over as if it had its answers.
		for _, r := range sel.Records {
			if r.Annotator == records.GoldAnnotator && r.Status == records.StatusEmpty {
				out.Warnings = append(out.Warnings, fmt.Sprintf("unit %s: the gold set has no answer for it (nobody has completed it): exported without answers", r.Unit))
			}
		}
	}
	out.t, out.inputs, out.keys, out.Orders = t, inputs, keys, orders
	if man != nil {
		out.read = man.InputOptions()
	}
	return out, nil
}

// ReadInputs reads the study's input records the native file is made
// from, and checks that every selected record's spans stand in their
// texts where they say (offsets are what the native file gives); origins
// name the records in errors.
func (n *Native) ReadInputs(origins records.Origins) error {
	items, err := Items(n.t, n.inputs, n.read, n.keys)
	if err != nil {
		return err
	}
	if err := spansInInputs(n.Selection.Records, items, origins); err != nil {
		return err
	}
	n.Items, n.Style = items, inputStyle(n.inputs)
	return nil
}

// EachItem reads the study's input records from inputs, as generate
// read them (opt), one at a time: keys are the manifest's anonymisation
// keys.
func EachItem(t *templates.Template, inputs []string, opt input.Options, keys map[string]map[string]string, fn func(*layout.SourceItem) error) error {
	src, err := input.OpenFor(context.Background(), t, inputs, opt)
	if err != nil {
		return err
	}
	return layout.Items(t, src, keys, fn)
}

// Items is every input record EachItem reads.
func Items(t *templates.Template, inputs []string, opt input.Options, keys map[string]map[string]string) ([]*layout.SourceItem, error) {
	var items []*layout.SourceItem
	err := EachItem(t, inputs, opt, keys, func(it *layout.SourceItem) error {
		items = append(items, it)
		return nil
	})
	return items, err
}

// inputStyle is the JSON style of the study's input, which the native file
// keeps: the first input file, or a factgenie folder's outputs.jsonl. The
// file is read as a stream, however large; a named pipe is not read.
func inputStyle(inputs []string) ojson.Style {
	for _, in := range inputs {
		path := in
		if st, err := os.Stat(in); err == nil && st.IsDir() {
			path = filepath.Join(in, "outputs.jsonl")
		}
		f, err := boundedread.Open(path)
		if err != nil {
			continue
		}
		s, err := ojson.DetectStyleReader(f)
		f.Close()
		if err == nil {
			return s
		}
	}
	return ojson.Style{Indent: "  ", Newline: true}
}

// spansInInputs checks every record's spans against the texts of the
// study's inputs they were found in, and says each that does not stand
// there, by the record's file and line.
func spansInInputs(recs []*records.Annotation, items []*layout.SourceItem, origins records.Origins) error {
	fields := map[string]map[string]string{}
	for _, it := range items {
		maps.Copy(fields, it.Fields)
	}
	var errs []error
	for _, r := range recs {
		where := origins[r]
		if where == "" {
			where = r.Source.File
		}
		who := ""
		if r.Annotator != "" {
			who = " by " + r.Annotator
		}
		for _, p := range records.SpanTextProblems(r, fields[r.Unit]) {
			errs = append(errs, fmt.Errorf("%s: unit %s%s: %w: %s", where, r.Unit, who, ErrSpanText, p))
		}
	}
	return errors.Join(errs...)
}

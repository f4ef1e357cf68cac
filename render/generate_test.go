package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// TestWroteWorkbook: a workbook's line says its units, rows, annotator
// and batch, and who a spreadsheet is shared with when anyone is.
func TestWroteWorkbook(t *testing.T) {
	t.Parallel()
	units := []manifest.Unit{{ID: "u1"}, {ID: "u2"}}
	for _, tc := range []struct {
		name   string
		where  string
		b      manifest.Batch
		shared []string
		want   string
	}{
		{name: "a shared workbook", where: "out/legal-gaps-b01.xlsx", b: manifest.Batch{ID: "b01", Units: units[:1], Rows: 1},
			want: "wrote out/legal-gaps-b01.xlsx: 1 unit in 1 row (batch b01)\n"},
		{name: "an annotator's", where: "out/legal-gaps-ak-b01.xlsx", b: manifest.Batch{ID: "ak-b01", Annotator: "ak", Units: units, Rows: 5},
			want: "wrote out/legal-gaps-ak-b01.xlsx: 2 units in 5 rows (for ak, batch ak-b01)\n"},
		{name: "a spreadsheet shared", where: "https://docs.google.com/spreadsheets/d/x", b: manifest.Batch{ID: "b01", Annotator: "a@lab.org", Units: units, Rows: 2},
			shared: []string{"pi@lab.org", "a@lab.org"},
			want: "wrote https://docs.google.com/spreadsheets/d/x: 2 units in 2 rows (for a@lab.org, batch b01)\n" +
				"  shared with pi@lab.org, a@lab.org (can edit)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			wroteWorkbook(&b, tc.where, &tc.b, tc.shared)
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestGenerated: generate's closing lines say how the instances were
// shared out, what got no row, how many warnings there were, and where
// the manifest is, from what Generate made.
func TestGenerated(t *testing.T) {
	t.Parallel()
	units := []layout.Unit{{ID: "a#1", Item: "a"}, {ID: "a#2", Item: "a"}, {ID: "b", Item: "b"}}
	tmpl := manifest.Template{Name: "legal-gaps", Version: 2}
	gen := func(format string, a *manifest.Assignment, batches int, res layout.Result) *study.Generated {
		return &study.Generated{
			Manifest: &manifest.Manifest{Format: format, Template: tmpl, Assignment: a, Batches: make([]manifest.Batch, batches)},
			Path:     "out/manifest.json", All: &res,
		}
	}
	const where = "wrote out/manifest.json (the coordinator's record; keep it from annotators)\n"
	for _, tc := range []struct {
		name string
		gen  *study.Generated
		want string
	}{
		{name: "one shared workbook", gen: gen(study.FormatXLSX, &manifest.Assignment{Overlap: 1}, 1, layout.Result{Units: units}),
			want: "template legal-gaps v2\n" + where},
		{name: "shared workbooks", gen: gen(study.FormatXLSX, &manifest.Assignment{Overlap: 1, BatchSize: 1}, 2, layout.Result{Units: units}),
			want: "2 instances in 2 shared workbooks (template legal-gaps v2)\n" + where},
		{name: "annotators' spreadsheets", gen: gen(study.FormatGSheets, &manifest.Assignment{Annotators: []string{"ak", "bt", "cm"}, Overlap: 2}, 3, layout.Result{Units: units}),
			want: "2 instances, each for 2 of 3 annotators, in 3 spreadsheets (template legal-gaps v2)\n" + where},
		{name: "no assignment recorded", gen: gen(study.FormatXLSX, nil, 1, layout.Result{Units: units}),
			want: "template legal-gaps v2\n" + where},
		{name: "a record skipped, a warning", gen: gen(study.FormatXLSX, &manifest.Assignment{Overlap: 1}, 1, layout.Result{Units: units, Records: 3, Skipped: 1, Warnings: records.Problems{{}}}),
			want: "template legal-gaps v2\nnote: 1 of 3 records has nothing to annotate and got no rows\nnote: 1 warning (see above)\n" + where},
		{name: "records skipped, warnings", gen: gen(study.FormatXLSX, &manifest.Assignment{Overlap: 1}, 1, layout.Result{Units: units, Records: 4, Skipped: 2, Warnings: records.Problems{{}, {}}}),
			want: "template legal-gaps v2\nnote: 2 of 4 records have nothing to annotate and got no rows\nnote: 2 warnings (see above)\n" + where},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			Generated(&b, tc.gen)
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestGeneratingHooks: the hooks say warnings and notes on Err, each
// workbook on Out, shared with Share and its own annotator only for
// spreadsheets; a writer that is no terminal gets no progress bar.
func TestGeneratingHooks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, format      string
		wantOut, wantErrs string
	}{
		{name: "files", format: study.FormatXLSX,
			wantOut:  "wrote w: 0 units in 3 rows (for a@lab.org, batch b01)\n",
			wantErrs: "warning: cut\nsigning in\n"},
		{name: "spreadsheets", format: study.FormatGSheets,
			wantOut:  "wrote w: 0 units in 3 rows (for a@lab.org, batch b01)\n  shared with pi@lab.org, a@lab.org (can edit)\n",
			wantErrs: "warning: cut\nsigning in\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errs strings.Builder
			g := &Generating{Out: &out, Err: &errs, Format: tc.format, Share: []string{"pi@lab.org"}}
			opt := g.Hooks(study.GenerateOptions{Batch: "b01"})
			if opt.Batch != "b01" {
				t.Errorf("Hooks lost the options: %+v", opt)
			}
			opt.Warn(errors.New("cut"))
			opt.Note("signing in")
			opt.Progress(10)(3)
			opt.Wrote("w", &manifest.Batch{ID: "b01", Annotator: "a@lab.org", Rows: 3}, []string{"a@lab.org"})
			g.Done()
			g.Done()
			if diff := cmp.Diff(tc.wantOut, out.String()); diff != "" {
				t.Errorf("out (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantErrs, errs.String()); diff != "" {
				t.Errorf("errs (-want +got)\n%s", diff)
			}
		})
	}
}

// TestWritingLabel: the progress bar says what a study of each format does.
func TestWritingLabel(t *testing.T) {
	t.Parallel()
	for format, want := range map[string]string{study.FormatXLSX: "writing workbooks", study.FormatGSheets: "making spreadsheets"} {
		if got := writing(format); got != want {
			t.Errorf("writing(%q) = %q, want %q", format, got, want)
		}
	}
}

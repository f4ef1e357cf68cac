package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// elementTemplate makes a unit of each element of an instance's list.
const elementTemplate = `name: legal-gaps
version: 1
title: Elements
instructions: Judge each claim.
input: {format: jsonl, id: "{id}"}
rows: {per: element, path: claims, unit: "{$id}#{$n}"}
context:
  - {name: claim, header: Claim, path: "@.text"}
questions:
  - {name: ok, header: OK, type: bool}
annotator: {claim: row}
`

// TestControlsWholeInstances: an annotator takes a whole instance, so a
// control instance needs known answers for each of its units; the gold
// set's problems are said by its lines, with the inputs'.
func TestControlsWholeInstances(t *testing.T) {
	t.Parallel()
	tp, err := templates.Load("el.yaml", []byte(elementTemplate))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"id": "a", "claims": [{"text": "one"}, {"text": "two"}]}
{"id": "b", "claims": [{"text": "three"}]}
{"id": "c", "claims": [{"text": "four"}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	line := func(unit, item string) string {
		return `{"schema": "annosheet.annotation/1", "template": {"name": "legal-gaps", "version": 1}, "batch": "g", "unit": "` + unit + `", "item": "` + item +
			`", "annotator": "gold", "status": "complete", "values": {"ok": true}, "source": {"kind": "adjudication", "file": "", "sheet": "", "rows": []}, "problems": []}`
	}
	gold := filepath.Join(dir, "gold.jsonl")
	if err := os.WriteFile(gold, []byte(line("a#1", "a")+"\n"+line("b#1", "b")+"\n"+line("z#1", "z")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := input.Open("jsonl", []string{in})
	if err != nil {
		t.Fatal(err)
	}
	spool := input.NewSpool(src)
	defer spool.Close()
	opt := GenerateOptions{Template: tp, Inputs: []string{in}, Dir: filepath.Join(dir, "study"), Batch: "b01", Seed: 1, SeedSet: true, Annotators: []string{"ak"}, Controls: gold, ControlsPerBatch: 1}
	_, err = Generate(context.Background(), opt, spool, &memWriter{})
	var ps records.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v, want the gold set's problems", err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, strings.TrimPrefix(p.Error(), dir+string(filepath.Separator)))
	}
	want := []string{
		`gold.jsonl:1: record "a#1": instance "a" is a control, but its unit "a#2" has no known answer here: an annotator takes a whole instance, so give all its units or none`,
		`gold.jsonl:3: record "z#1": no unit of the inputs has this ID`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestControlsSamePlan: the same command again keeps the study made with
// its controls; other controls, or another number of them to a batch,
// make another study, which needs --force.
func TestControlsSamePlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gold := filepath.Join(dir, "gold.jsonl")
	rec := `{"schema": "annosheet.annotation/1", "template": {"name": "legal-gaps", "version": 1}, "batch": "g", "unit": "gpt4o-11", "item": "gpt4o-11", "annotator": "gold", "status": "complete", "values": {"gaps": ["2"]}, "source": {"kind": "adjudication", "file": "", "sheet": "", "rows": []}, "problems": []}` + "\n"
	rec += strings.ReplaceAll(rec, "gpt4o-11", "llama3-11")
	if err := os.WriteFile(gold, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &memWriter{}
	opt := legalOptions(t, filepath.Join(dir, "study"))
	opt.Controls, opt.ControlsPerBatch = gold, 1
	first, err := generate(t, opt, w)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range first.Manifest.Batches {
		if len(b.Controls) != 1 || b.Controls[0] != "gpt4o-11" && b.Controls[0] != "llama3-11" {
			t.Errorf("batch %s: controls %v", b.ID, b.Controls)
		}
	}
	// The same study: every workbook is made, and it says so.
	if _, err := generate(t, opt, w); err == nil || !strings.Contains(err.Error(), "workbooks of this study are made") {
		t.Errorf("the same study again: %v", err)
	}
	opt.ControlsPerBatch = 2
	if _, err := generate(t, opt, w); !errors.Is(err, atomicfile.ErrExists) || !strings.Contains(err.Error(), "it records another study") {
		t.Errorf("another number of controls to a batch: %v", err)
	}
	opt.ControlsPerBatch = 1
	if err := os.WriteFile(gold, []byte(strings.Replace(rec, `["2"]`, `["2", "3"]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := generate(t, opt, w); !errors.Is(err, atomicfile.ErrExists) || !strings.Contains(err.Error(), "it records another study") {
		t.Errorf("other known answers: %v", err)
	}
}

package decode_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

const claimsTemplate = `name: claims
version: 1
title: Claims
instructions: Judge.
input: {format: jsonl, id: "{id}"}
rows: {per: element, path: items, unit: "{$id}#{$n}"}
context: [{name: t, header: T, path: "@.t"}]
questions: [{name: ok, header: OK, type: choice, required: true, options: [{code: y}, {code: n}]}]
annotator: {claim: instance}
`

const claimsRecords = `{"id": "i1", "items": [{"t": "a"}, {"t": "b"}, {"t": "c"}]}
{"id": "i2", "items": [{"t": "d"}]}
`

// TestPullAnnotatorIDs checks that the IDs annotators type in a shared
// workbook are one annotator whatever their case and surrounding spaces,
// written in one spelling, with a warning where an ID is probably a typo.
func TestPullAnnotatorIDs(t *testing.T) {
	ks, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	claims, err := templates.Load("claims.yaml", []byte(claimsTemplate))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		tp       *templates.Template
		declared []string
		ids      map[string]string // unit -> annotator cell
		want     map[string]string // unit -> record's annotator
		probs    []prob
	}{
		{name: "case and spaces", tp: ks,
			ids:  map[string]string{"r1": "ak", "r2": "AK", "r3": " ak "},
			want: map[string]string{"r1": "ak", "r2": "ak", "r3": "ak"}},
		{name: "the first spelling in sheet order", tp: ks,
			ids:  map[string]string{"r1": " Ak", "r2": "ak", "r3": "AK"},
			want: map[string]string{"r1": "Ak", "r2": "Ak", "r3": "Ak"}},
		{name: "the declared spelling", tp: ks, declared: []string{"AK", "BT"},
			ids:  map[string]string{"r1": "ak", "r2": " Ak ", "r3": "bt"},
			want: map[string]string{"r1": "AK", "r2": "AK", "r3": "BT"}},
		{name: "not declared", tp: ks, declared: []string{"AK", "BT"},
			ids:  map[string]string{"r1": "AK", "r2": "CD", "r3": "a.k."},
			want: map[string]string{"r1": "AK", "r2": "CD", "r3": "a.k."},
			probs: []prob{
				{"warning", "P3", "r2", `annotator ID "CD" is not one of the study's annotators: AK, BT`, decode.ErrAnnotator},
				{"warning", "P4", "r3", `annotator ID "a.k." is not one of the study's annotators: AK, BT (AK?)`, decode.ErrAnnotator},
			}},
		{name: "only punctuation differs", tp: ks,
			ids:  map[string]string{"r1": "ak", "r2": "a.k.", "r3": "A-K"},
			want: map[string]string{"r1": "ak", "r2": "a.k.", "r3": "A-K"},
			probs: []prob{
				{"warning", "P3", "r2", `annotator ID "a.k." differs from "ak" (Annotate!P2) only in punctuation: the same annotator? It is read as another one`, decode.ErrAnnotator},
				{"warning", "P4", "r3", `annotator ID "A-K" differs from "ak" (Annotate!P2) only in punctuation: the same annotator? It is read as another one`, decode.ErrAnnotator},
			}},
		{name: "one instance, one annotator in several spellings", tp: claims,
			ids:  map[string]string{"i1#1": "AK", "i1#2": " ak", "i1#3": "Ak", "i2#1": "bt"},
			want: map[string]string{"i1#1": "AK", "i1#2": "AK", "i1#3": "AK", "i2#1": "bt"}},
		{name: "one instance, two annotators", tp: claims, declared: []string{"ak", "BT"},
			ids:  map[string]string{"i1#1": "AK", "i1#2": "bt", "i1#3": "Ak", "i2#1": "bt"},
			want: map[string]string{"i1#1": "ak", "i1#2": "BT", "i1#3": "ak", "i2#1": "BT"},
			probs: []prob{
				{"error", "D3", "i1#2", `instance "i1" has more than one annotator: ak (rows 2, 4), BT (rows 3); one annotator takes a whole instance`, decode.ErrAnnotator},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m *memBook
			if c.tp == ks {
				m = newMemBook(t, ks, ksRecords)
			} else {
				m = newMemBook(t, claims, claimsRecords)
			}
			for u, id := range c.ids {
				m.set(u, "annotator", id)
				if c.tp == ks {
					m.set(u, "q:pick", "Yes")
				} else {
					m.set(u, "q:ok", "y")
				}
			}
			p := pullMem(t, m, decode.PullOptions{Annotators: c.declared})
			got := map[string]string{}
			for _, r := range p.Records {
				got[r.Unit] = r.Annotator
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("annotators (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.probs, probs(p.Problems), cmpErr, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, r := range p.Records {
				if r.Status != records.StatusComplete && len(c.probs) == 0 {
					t.Errorf("%s: %s %v", r.Unit, r.Status, r.Problems)
				}
			}
		})
	}
}

package render

import (
	"strings"
	"testing"

	"github.com/annosheet/annosheet/study"
)

var testAsked = ExportAsked{AllowProblems: "(problems)", AllowUnresolved: "(unresolved)", InputChanged: "(changed)"}

// TestLeftOut: what an export left out, by status, then what it kept
// all the same, each part only when there is one, the options that had it
// kept named as the caller names them.
func TestLeftOut(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		l    study.NativeLeftOut
		want string
	}{
		{"nothing", study.NativeLeftOut{}, ""},
		{"one partial", study.NativeLeftOut{Partial: 1}, "; left out 1 partial unit"},
		{"every status", study.NativeLeftOut{Partial: 1, Empty: 2, Missing: 3, Unreadable: 4}, "; left out 1 partial, 2 empty, 3 missing, 4 unreadable units"},
		{"kept with errors", study.NativeLeftOut{WithErrors: 1}, "; 1 unit with errors kept ((problems))"},
		{"copies kept once", study.NativeLeftOut{Duplicates: 2}, "; 2 records repeated identically, each kept once"},
		{"all of it", study.NativeLeftOut{Empty: 2, WithErrors: 3, Duplicates: 1},
			"; left out 2 empty units; 3 units with errors kept ((problems)); 1 record repeated identically, each kept once"},
	} {
		if got := LeftOut(c.l, testAsked); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestNativeWarnings: the inputs that changed, then each gold unit
// exported without what nobody decided, then the selection's warnings;
// nothing for nothing.
func TestNativeWarnings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		n    *study.Native
		want string
	}{
		{"nothing prepared", nil, ""},
		{"nothing to say", &study.Native{}, ""},
		{"inputs changed, as a refusal returns them", &study.Native{Changed: []string{"a.jsonl", "b.jsonl"}},
			"warning: a.jsonl, b.jsonl: not the content the workbooks were generated from; exported with it as (changed) says (offsets may not match)\n"},
		{"all of it", &study.Native{
			Changed:   []string{"a.jsonl"},
			Selection: &study.Selection{Unresolved: []string{"u1: gaps (decision d0003) unresolved"}},
			Warnings:  []string{"unit u2: the gold set has no answer for it"},
		}, "warning: a.jsonl: not the content the workbooks were generated from; exported with it as (changed) says (offsets may not match)\n" +
			"warning: u1: gaps (decision d0003) unresolved: exported without it ((unresolved))\n" +
			"warning: unit u2: the gold set has no answer for it\n"},
	} {
		var b strings.Builder
		NativeWarnings(&b, c.n, testAsked)
		if b.String() != c.want {
			t.Errorf("%s: %q, want %q", c.name, b.String(), c.want)
		}
	}
}

func TestWroteExport(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	WroteNative(&b, "labels.jsonl", 1)
	WroteNative(&b, "labels-ak.jsonl", 12)
	WroteTable(&b, "wide.parquet", "wide", 1, 7)
	want := "wrote labels.jsonl: 1 record\nwrote labels-ak.jsonl: 12 records\nwrote wide.parquet: the wide table, 1 row and 7 columns\n"
	if b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
}

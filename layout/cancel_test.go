package layout_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// cancelling hands out the records of a source, counting them, and
// cancels the run as it hands out the at-th: Ctrl-C while the records
// are checked.
type cancelling struct {
	layout.Source
	at     int
	cancel context.CancelFunc
	seen   int
}

func (c *cancelling) Each(fn func(*layout.Record) error) error {
	return c.Source.Each(func(r *layout.Record) error {
		if c.seen++; c.seen == c.at {
			c.cancel()
		}
		return fn(r)
	})
}

// cancelTemplate is a template of one row per record, or, with per
// element, one row per element of a list, whose field "who" is
// anonymised (read in a pass of its own) when anonymise is set. The
// context is read from field, "text" in the records.
func cancelTemplate(t *testing.T, perElement, anonymise bool, field string) *templates.Template {
	t.Helper()
	src := `name: cancel
version: 1
title: Cancel
instructions: Judge.
input: {format: jsonl, id: "{id}"}
`
	if anonymise {
		src += "anonymize:\n  - {field: who, as: who_label}\n"
	}
	if perElement {
		src += "rows: {per: element, path: parts, unit: \"{$id}-{$n}\"}\ncontext:\n  - {name: part, path: \"@.text\"}\n"
	} else {
		src += "rows: {per: record}\ncontext:\n  - {name: text, path: " + field + "}\n"
	}
	src += "questions:\n  - {name: ok, type: bool}\n"
	tp, err := templates.Load("cancel.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// cancelInput writes records records, each with a text of a few
// thousand characters (so that each takes a while to fit) and parts
// elements.
func cancelInput(t *testing.T, records, parts int) layout.Source {
	t.Helper()
	var b strings.Builder
	text := strings.Repeat("The court held that the plan administrator’s reading was reasonable. ", 60)
	for i := range records {
		rec := map[string]any{"id": fmt.Sprintf("r%04d", i), "who": fmt.Sprintf("system %d", i%3), "text": text}
		var ps []any
		for k := range parts {
			ps = append(ps, map[string]any{"text": fmt.Sprintf("part %d: %s", k, text)})
		}
		rec["parts"] = ps
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := input.Open("jsonl", []string{path})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestBuildStopsWhenCancelled: a build whose context is cancelled while
// it reads the records stops at the record it is on, whichever pass
// reads it, and says why with ctx's error; it neither reads on to the
// end nor returns a plan.
func TestBuildStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	const records = 200
	for _, c := range []struct {
		name      string
		anonymise bool
		field     string // that the template reads; "text" by default
		opt       layout.Options
		at        int // the record handed out when the run is cancelled; 0: cancelled before
	}{
		{name: "shared workbook", at: 20},
		{name: "check only", opt: layout.Options{CheckOnly: true}, at: 20},
		{name: "one batch", opt: layout.Options{Items: func(string) bool { return true }}, at: 150},
		{name: "labels drawn", anonymise: true, at: 20},
		// Records that lack a field the template needs are not
		// rendered: they are looked at between records too.
		{name: "records with problems", field: "title", at: 20},
		{name: "after the labels are drawn", anonymise: true, at: records + 20},
		{name: "the first record", at: 1},
		{name: "cancelled before", at: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.at == 0 {
				cancel()
			}
			src := &cancelling{Source: cancelInput(t, records, 0), at: c.at, cancel: cancel}
			field := c.field
			if field == "" {
				field = "text"
			}
			res, err := layout.Build(ctx, cancelTemplate(t, false, c.anonymise, field), src, c.opt)
			if !errors.Is(err, context.Canceled) || res != nil {
				res.Close()
				t.Fatalf("Build: %v, %v; want context.Canceled and no result", res, err)
			}
			// The record being handed out when Ctrl-C came is the last
			// one read.
			if src.seen != c.at {
				t.Errorf("%d records read, want %d: the build went on after the run was cancelled", src.seen, c.at)
			}
		})
	}
}

// doneAfter is a context that is done from its n-th look on: a run
// cancelled while a record's rows are rendered, without timing. (Only
// its Err says so, which is all Build looks at.)
type doneAfter struct {
	context.Context
	n     int64
	looks atomic.Int64
}

func (d *doneAfter) Err() error {
	if d.looks.Add(1) >= d.n {
		return context.Canceled
	}
	return nil
}

// TestBuildStopsWithinARecord: a record of many rows (one per element of
// a long list, each with a long text to fit) is not rendered to its end
// once the run is cancelled.
func TestBuildStopsWithinARecord(t *testing.T) {
	t.Parallel()
	tp := cancelTemplate(t, true, false, "text")
	src := cancelInput(t, 1, 2000)
	// Whole, it builds.
	res, err := layout.Build(context.Background(), tp, src, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 2000 {
		t.Fatalf("%d rows, want 2000", res.Rows)
	}
	res.Close()
	ctx := &doneAfter{Context: context.Background(), n: 50}
	if res, err := layout.Build(ctx, tp, src, layout.Options{}); !errors.Is(err, context.Canceled) {
		res.Close()
		t.Fatalf("Build of a record of 2000 rows, cancelled after 50 looks: %v; want context.Canceled", err)
	}
	if n := ctx.looks.Load(); n != 50 {
		t.Errorf("the build looked at its context %d times after it was done, want none", n-50)
	}
}

package layout

import (
	"context"
	"fmt"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// Rerendered is a Build's Result and its Annotate and Read sheets' rows
// made as they were before the first pass kept them: the input read
// again, every record expanded and its rows rendered anew, complete, the
// lines of every cell counted again for the heights (the Read sheet's in
// a pass of its own). Read is nil when the workbook has no Read sheet.
type Rerendered struct {
	*Result
	Annotate, Read func(emit func(backend.Row) error) error
}

// BuildRerendered is Build, with the rows rendered again beside the
// replayed ones, for the test that they are the same.
func BuildRerendered(t *templates.Template, src Source, opt Options) (*Rerendered, error) {
	b, err := build(context.Background(), t, src, opt)
	if err != nil {
		return nil, err
	}
	out := &Rerendered{Result: b.res, Annotate: b.annotateRows(b.rerender)}
	if b.long.read > 0 {
		out.Read = readSheetOf(1+b.long.read, readIntro, b.rerenderRead).Rows
	}
	return out, nil
}

// SetLinkCap sets how many cut texts get links, and returns a function
// that restores it.
func SetLinkCap(n int) (restore func()) {
	old := linkCap
	linkCap = n
	return func() { linkCap = old }
}

// eachRendered reads the input again and renders each picked record's
// rows complete, as the pass that wrote the Annotate sheet did before.
func (b *builder) eachRendered(fn func(*rendered) error) error {
	b.resetBands()
	b.long = longState{}
	return b.src.Each(func(rec *Record) error {
		it, ps := b.expand(rec)
		if len(ps) > 0 {
			return fmt.Errorf("input changed while generating: %w", ps)
		}
		if it == nil || !b.picked(it) {
			return nil
		}
		r, err := b.itemRows(it, false)
		if err != nil {
			return err
		}
		// The heights counted anew, every cell's text again.
		n := len(r.rows)
		merged := b.t.Rows.Per == templates.PerBlock && n > 1
		if merged {
			r.block = b.blockLines(r.rows[0].Cells, n, nil)
		}
		for k, row := range r.rows {
			r.lines[k] = b.lines(row.Cells, !merged, nil)
		}
		return fn(r)
	})
}

func (b *builder) rerender(emit func(backend.Row) error) error {
	return b.eachRendered(func(r *rendered) error {
		b.long.texts = b.long.texts[:0]
		return r.emit(emit)
	})
}

func (b *builder) rerenderRead(emit func(backend.Row) error) error {
	return b.eachRendered(func(*rendered) error {
		for i := range b.long.texts {
			t := &b.long.texts[i]
			b.titleRead(t)
			if err := emitRead(*t, emit); err != nil {
				return err
			}
		}
		b.long.texts = b.long.texts[:0]
		return nil
	})
}

package xlsx

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
)

// TestReadStops checks that a grid's Rows stops soon once the context
// the workbook was opened with ends, with its error, not as damage, even
// while no row reaches the caller (rows queued for their shared strings).
func TestReadStops(t *testing.T) {
	var rows, sst strings.Builder
	for r := 1; r <= 20000; r++ {
		fmt.Fprintf(&rows, `<row r="%d"><c t="s"><v>%d</v></c><c t="inlineStr"><is><t>%s</t></is></c></row>`, r, r, strings.Repeat("text ", 10))
		fmt.Fprintf(&sst, "<si><t>s%d %s</t></si>", r, strings.Repeat("long ", 50))
	}
	sst.WriteString("<si><t>last</t></si>")
	path := oneSheet(rows.String(), sst.String(), "").file(t)
	// The shared strings are more than sstWholeBytes: rows are queued.
	for _, c := range []struct {
		name string
		keep func(int) bool
		at   int // the row at which the context ends
	}{{"rows", nil, 0}, {"skim", func(col int) bool { return col == 0 }, 0}, {"skim-while-read", func(col int) bool { return col == 1 }, 1}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g, closeFn, err := OpenContext(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			if c.at == 0 {
				cancel()
			}
			n := 0
			err = g.RowsKeeping("S1", c.keep, func(int, []backend.ReadCell) error {
				if n++; n == c.at {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) || errors.Is(err, ErrDamaged) || n > 1000 {
				t.Errorf("after %d rows: %v; want context.Canceled soon", n, err)
			}
		})
	}
}

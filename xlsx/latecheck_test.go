package xlsx

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
)

// TestLateCheck opens workbooks whose every part is checked while they are
// read (as openBook checks the large ones) and checks that damage the
// check finds is never lost: it ends the read under way with its own
// error, is the error of the reads after it, and is what close returns
// when no read reached the damaged part.
func TestLateCheck(t *testing.T) {
	t.Parallel()
	book := writerBook(t)
	withPart := func(name string, b []byte) []byte { return withParts(t, book, map[string]string{name: string(b)}) }
	dtd := withPart("customXml/item1.xml", []byte(`<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><r>&a;</r>`))
	bomb := withPart("xl/bomb.xml", make([]byte, MinPartLimit+1))
	unread := flipCompressed(t, withPart("xl/media/image1.bin", bytes.Repeat([]byte("not read by pull "), 4096)), "xl/media/image1.bin")

	for _, c := range []struct {
		name string
		data []byte
		// wait: the sheet is read once the check has ended; stall: the
		// read waits for it to end after the first row.
		wait, stall bool
		read        error // what reading the Annotate sheet gives
		close       error // what close gives
		part        string
		// elsewhere: the damage is in a part the read does not reach; the
		// read gives it only if the check has found it by the read's end.
		elsewhere bool
	}{
		{name: "a sound workbook", data: book},
		{name: "damage in the sheet read", data: flipCompressed(t, book, annotatePart), read: ErrDamaged, close: ErrDamaged, part: annotatePart},
		{name: "damage in a part no read reaches", data: unread, close: ErrDamaged, part: "xl/media/image1.bin", elsewhere: true},
		{name: "a DTD in a part no read reaches", data: dtd, close: ErrDTD, part: "customXml/item1.xml", elsewhere: true},
		{name: "a read after the check found a bomb", data: bomb, wait: true, read: ErrTooLarge, close: ErrTooLarge, part: "xl/bomb.xml"},
		{name: "a read under way when the check finds a bomb", data: bomb, stall: true, read: ErrTooLarge, close: ErrTooLarge, part: "xl/bomb.xml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "b01.xlsx")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := openChecked(context.Background(), path, path, 0)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if b.check == nil {
				t.Fatal("nothing is checked while the workbook is read")
			}
			if c.wait {
				<-b.check.done
			}
			rows := 0
			err = b.grid().Rows("Annotate", func(int, []backend.ReadCell) error {
				if rows++; rows == 1 && c.stall {
					<-b.check.done
				}
				return nil
			})
			switch {
			case err != nil && strings.Contains(err.Error(), path):
				t.Errorf("read: %v names the file, which the grid's caller adds", err)
			case c.elsewhere && err != nil && !errors.Is(err, c.close):
				t.Errorf("read: %v, want none or %v", err, c.close)
			case c.elsewhere:
			case c.read == nil && err != nil:
				t.Errorf("read: %v", err)
			case c.read != nil && !errors.Is(err, c.read):
				t.Errorf("read: %v, want %v", err, c.read)
			case c.read == nil && rows < 4:
				t.Errorf("read %d rows, want the header and 3 units", rows)
			}
			for range 2 { // close says it each time it is asked
				err := b.close()
				switch {
				case c.close == nil && err != nil:
					t.Errorf("close: %v", err)
				case c.close != nil && (!errors.Is(err, c.close) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), c.part)):
					t.Errorf("close: %v, want %v naming the file and part %s", err, c.close, c.part)
				}
			}
		})
	}

	t.Run("Ctrl-C is no damage", func(t *testing.T) {
		t.Parallel()
		// A sound part that takes the check a while: it is still at it
		// when ctx ends, most times.
		path := filepath.Join(t.TempDir(), "b01.xlsx")
		if err := os.WriteFile(path, withPart("xl/media/zeros.bin", make([]byte, MinPartLimit/2)), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		b, err := openChecked(ctx, path, path, 0)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := b.grid().Rows("Annotate", func(int, []backend.ReadCell) error { return nil }); !errors.Is(err, context.Canceled) {
			t.Errorf("read: %v, want %v", err, context.Canceled)
		}
		if err := b.close(); err != nil {
			t.Errorf("close: %v, want none: the check was stopped, not failed", err)
		}
	})
}

// TestLargePartsCheckedLate: openBook checks a part of lateCheckBytes and
// more while the caller reads, and the rest before it returns.
func TestLargePartsCheckedLate(t *testing.T) {
	t.Parallel()
	book := writerBook(t)
	big := make([]byte, lateCheckBytes+1<<16)
	rand.NewChaCha8([32]byte{1}).Read(big) // random bytes deflate not at all
	data := withParts(t, book, map[string]string{"xl/media/image1.bin": string(big)})
	path := filepath.Join(t.TempDir(), "b01.xlsx")
	if err := os.WriteFile(path, flipCompressed(t, data, "xl/media/image1.bin"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, closeFn, err := openBook(context.Background(), path, path)
	if err != nil {
		t.Fatalf("open: %v (the large part is checked while the workbook is read)", err)
	}
	if err := g.Rows("Annotate", func(int, []backend.ReadCell) error { return nil }); err != nil && !errors.Is(err, ErrDamaged) {
		t.Errorf("read: %v", err)
	}
	if err := closeFn(); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "xl/media/image1.bin") {
		t.Errorf("close: %v, want the damage of xl/media/image1.bin", err)
	}
	// A small part is checked before Open returns.
	small := filepath.Join(t.TempDir(), "b02.xlsx")
	if err := os.WriteFile(small, flipCompressed(t, book, annotatePart), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openBook(context.Background(), small, small); !errors.Is(err, ErrDamaged) {
		t.Errorf("open: %v, want %v", err, ErrDamaged)
	}
}

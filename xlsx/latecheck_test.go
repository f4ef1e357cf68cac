package xlsx

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
)

// TestLateCheck opens workbooks whose every part is left to the check at
// close (as openBook leaves the large ones) and checks that damage is
// never lost: a read that reaches it fails with it, and close gives the
// damage of a part no read went through, each time it is asked. A part a
// read went through to its end is not inflated again.
func TestLateCheck(t *testing.T) {
	t.Parallel()
	book := writerBook(t)
	withPart := func(name string, b []byte) []byte { return withParts(t, book, map[string]string{name: string(b)}) }
	dtd := withPart("customXml/item1.xml", []byte(`<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><r>&a;</r>`))
	unread := flipCompressed(t, withPart("xl/media/image1.bin", bytes.Repeat([]byte("not read by pull "), 4096)), "xl/media/image1.bin")
	errStop := errors.New("enough")

	for _, c := range []struct {
		name  string
		data  []byte
		stop  bool  // the caller ends the read after the first row
		read  error // what reading the Annotate sheet gives
		close error // what close gives
		part  string
		// checked: whether close inflates the Annotate sheet.
		checked bool
	}{
		{name: "a sound workbook", data: book},
		{name: "a read ended early", data: book, stop: true, read: errStop, checked: true},
		{name: "damage in the sheet read", data: flipCompressed(t, book, annotatePart), read: ErrDamaged, close: ErrDamaged, part: annotatePart, checked: true},
		{name: "damage in a part no read reaches", data: unread, close: ErrDamaged, part: "xl/media/image1.bin"},
		{name: "a DTD in a part no read reaches", data: dtd, close: ErrDTD, part: "customXml/item1.xml"},
		// Another entry of the central directory names the sheet's
		// bytes, with another checksum: reading the sheet checks not it.
		{name: "a second entry of the sheet read", data: aliasEntry(t, book, annotatePart, "xl/worksheets/sheet9.xml"), close: ErrDamaged, part: "xl/worksheets/sheet9.xml"},
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
				t.Fatal("nothing is left to close")
			}
			rows := 0
			err = b.grid().Rows("Annotate", func(int, []backend.ReadCell) error {
				if rows++; c.stop {
					return errStop
				}
				return nil
			})
			switch {
			case err != nil && strings.Contains(err.Error(), path):
				t.Errorf("read: %v names the file, which the grid's caller adds", err)
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
			checked := b.check.checked
			if got := slices.Contains(checked, annotatePart); got != c.checked {
				t.Errorf("close inflated %v; want the Annotate sheet among them: %v", checked, c.checked)
			}
			// The styles were read whole before the sheet; the core
			// properties, by no read.
			if slices.Contains(checked, "xl/styles.xml") || c.close == nil && !slices.Contains(checked, "docProps/core.xml") {
				t.Errorf("close inflated %v; want docProps/core.xml, and not xl/styles.xml", checked)
			}
		})
	}

	t.Run("a part that says it inflates beyond its limit", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "b01.xlsx")
		if err := os.WriteFile(path, withPart("xl/bomb.xml", make([]byte, MinPartLimit+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := openChecked(context.Background(), path, path, 0)
		if !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), "xl/bomb.xml") {
			t.Errorf("open: %v, want %v naming the file and xl/bomb.xml", err, ErrTooLarge)
		}
	})

	// Ctrl-C before the read, or after it: close gives ctx's error, not
	// damage and not nil, since the part left was not checked.
	for _, early := range []bool{true, false} {
		t.Run(fmt.Sprintf("Ctrl-C before the read: %v", early), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "b01.xlsx")
			if err := os.WriteFile(path, unread, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			b, err := openChecked(ctx, path, path, 0)
			if err != nil {
				t.Fatal(err)
			}
			if early {
				cancel()
			}
			err = b.grid().Rows("Annotate", func(int, []backend.ReadCell) error { return nil })
			switch {
			case early && !errors.Is(err, context.Canceled):
				t.Errorf("read: %v, want %v", err, context.Canceled)
			case !early && err != nil:
				t.Errorf("read: %v", err)
			}
			cancel()
			for range 2 {
				if err := b.close(); !errors.Is(err, context.Canceled) || errors.Is(err, ErrDamaged) {
					t.Errorf("close: %v, want %v alone: the check was stopped, not failed", err, context.Canceled)
				}
			}
		})
	}
}

// TestLargePartsCheckedLate: openBook leaves a part of lateCheckBytes and
// more to close, and checks the rest before it returns.
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
		t.Fatalf("open: %v (the large part is left to close)", err)
	}
	if err := g.Rows("Annotate", func(int, []backend.ReadCell) error { return nil }); err != nil {
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

// aliasEntry adds to the central directory of the zip archive data a
// second entry for the local header of part, named alias, whose
// checksum is wrong.
func aliasEntry(t testing.TB, data []byte, part, alias string) []byte {
	t.Helper()
	le16 := func(b []byte) int { return int(binary.LittleEndian.Uint16(b)) }
	end := bytes.LastIndex(data, []byte("PK\x05\x06"))
	if end < 0 {
		t.Fatal("no end of central directory")
	}
	size := int(binary.LittleEndian.Uint32(data[end+12:]))
	start := int(binary.LittleEndian.Uint32(data[end+16:]))
	cd := data[start : start+size]
	for p := 0; p < len(cd); {
		n := le16(cd[p+28:])
		next := p + 46 + n + le16(cd[p+30:]) + le16(cd[p+32:])
		if string(cd[p+46:p+46+n]) != part {
			p = next
			continue
		}
		rec := append([]byte{}, cd[p:p+46]...)
		binary.LittleEndian.PutUint32(rec[16:], binary.LittleEndian.Uint32(rec[16:])^1)
		binary.LittleEndian.PutUint16(rec[28:], uint16(len(alias)))
		binary.LittleEndian.PutUint16(rec[30:], 0)
		binary.LittleEndian.PutUint16(rec[32:], 0)
		rec = append(rec, alias...)
		out := append(append(append([]byte{}, data[:start+size]...), rec...), data[end:]...)
		e := out[start+size+len(rec):]
		binary.LittleEndian.PutUint16(e[8:], uint16(le16(e[8:])+1))
		binary.LittleEndian.PutUint16(e[10:], uint16(le16(e[10:])+1))
		binary.LittleEndian.PutUint32(e[12:], uint32(size+len(rec)))
		return out
	}
	t.Fatalf("no entry %s", part)
	return nil
}

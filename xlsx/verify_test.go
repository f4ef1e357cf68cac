package xlsx_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/xlsx"
)

// plainBook writes a small workbook with a value in Sheet1!A1.
func plainBook(t *testing.T) string {
	t.Helper()
	f := excelize.NewFile()
	f.SetCellValue("Sheet1", "A1", "answer")
	path := filepath.Join(t.TempDir(), "book.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// rewrite copies a workbook part by part, letting edit change one part's
// bytes (or its header) on the way.
func rewrite(t *testing.T, src string, edit func(h *zip.FileHeader, data []byte) []byte, extra func(w *zip.Writer)) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		h := f.FileHeader
		data = edit(&h, data)
		if h.Method == zip.Store && h.CRC32 != f.CRC32 {
			// A raw part whose checksum says other than its bytes.
			h.CompressedSize64, h.UncompressedSize64 = uint64(len(data)), uint64(len(data))
			w, err := zw.CreateRaw(&h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(data)
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: h.Name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if extra != nil {
		extra(zw)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "edited.xlsx")
	os.WriteFile(path, out.Bytes(), 0o644)
	return path
}

func TestOpenVerifies(t *testing.T) {
	t.Parallel()
	book := plainBook(t)
	same := func(_ *zip.FileHeader, d []byte) []byte { return d }
	sheet := "xl/worksheets/sheet1.xml"
	for _, tc := range []struct {
		name string
		path func() string
		want error
		msg  string
	}{
		{"a sound workbook", func() string { return rewrite(t, book, same, nil) }, nil, ""},
		{"a bad checksum", func() string {
			return rewrite(t, book, func(h *zip.FileHeader, d []byte) []byte {
				if h.Name == sheet {
					h.Method, h.CRC32 = zip.Store, h.CRC32^1
				}
				return d
			}, nil)
		}, xlsx.ErrDamaged, "checksum"},
		{"a DTD with an entity", func() string {
			return rewrite(t, book, func(h *zip.FileHeader, d []byte) []byte {
				if h.Name == sheet {
					return bytes.Replace(d, []byte("?>"), []byte(`?><!DOCTYPE worksheet [<!ENTITY a "aaaa">]>`), 1)
				}
				return d
			}, nil)
		}, xlsx.ErrDTD, "DOCTYPE"},
		{"a part that inflates a thousandfold", func() string {
			return rewrite(t, book, same, func(zw *zip.Writer) {
				w, err := zw.CreateHeader(&zip.FileHeader{Name: "xl/bomb.xml", Method: zip.Deflate})
				if err != nil {
					t.Fatal(err)
				}
				zeros := make([]byte, 1<<20)
				for range (xlsx.MinPartLimit >> 20) + 1 {
					w.Write(zeros)
				}
			})
		}, xlsx.ErrTooLarge, "part xl/bomb.xml"},
		{"parts that say they inflate beyond MaxTotal in all", func() string {
			return rewrite(t, book, same, func(zw *zip.Writer) {
				// Each within its own limit; checked before any inflates.
				for i := range xlsx.MaxTotal/xlsx.MinPartLimit + 1 {
					h := &zip.FileHeader{Name: fmt.Sprintf("xl/media/big%d.bin", i), Method: zip.Store,
						CompressedSize64: 1, UncompressedSize64: xlsx.MinPartLimit}
					w, err := zw.CreateRaw(h)
					if err != nil {
						t.Fatal(err)
					}
					w.Write([]byte{0})
				}
			})
		}, xlsx.ErrTooLarge, "in all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path()
			g, closeFn, err := xlsx.Open(path)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if err := closeFn(); err != nil {
					t.Errorf("close: %v", err)
				}
				if g.Sheets[0] != "Sheet1" {
					t.Errorf("sheets %v", g.Sheets)
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Open: %v, want %v naming the file, with %q", err, tc.want, tc.msg)
			}
		})
	}
}

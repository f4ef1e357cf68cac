// Package fuzzdata gives fuzz targets seeds cut from the real data in the
// module's testdata/data.
//
//	f.Add(fuzzdata.Snippet(f, "legal-gaps/examples.sample.jsonl", 600, false))
package fuzzdata

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Snippet reads the first n bytes of a file under testdata/data, cut back
// to the end of a line when cutLine is set.
func Snippet(tb testing.TB, path string, n int, cutLine bool) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(root(tb), "testdata", "data", path))
	if err != nil {
		tb.Fatal(err)
	}
	if len(b) > n {
		b = b[:n]
		if cutLine {
			if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
				b = b[:i+1]
			}
		}
	}
	return b
}

// root is the module's folder: the nearest one above the test's own with
// a go.mod.
func root(tb testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

package backendtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/backend"
)

// XLSXRule spells an XLSX data validation as Offer.Validations does.
func XLSXRule(dv *excelize.DataValidation) string {
	strict := dv.ErrorStyle == nil || *dv.ErrorStyle == "stop"
	var rule string
	switch dv.Type {
	case "list":
		f := strings.Trim(dv.Formula1, `"`)
		switch {
		case f == "TRUE,FALSE":
			rule = "checkbox"
		case strings.Contains(f, "!"):
			rule = "range " + f
		default:
			rule = "list " + f
		}
	case "whole":
		rule = fmt.Sprintf("number %s..%s", dv.Formula1, dv.Formula2)
	default:
		return "any" // a prompt alone
	}
	return fmt.Sprintf("%s strict=%v", rule, strict)
}

// SheetsRule spells a Google Sheets data validation as Offer.Validations
// does.
func SheetsRule(r *sheetsapi.DataValidationRule) string {
	var vals []string
	for _, v := range r.Condition.Values {
		vals = append(vals, v.UserEnteredValue)
	}
	var rule string
	switch r.Condition.Type {
	case "BOOLEAN":
		rule = "checkbox"
	case "ONE_OF_LIST":
		rule = "list " + strings.Join(vals, ",")
	case "ONE_OF_RANGE":
		rule = "range " + strings.TrimPrefix(vals[0], "=")
	case "NUMBER_BETWEEN":
		rule = fmt.Sprintf("number %s..%s", vals[0], vals[1])
	case "CUSTOM_FORMULA":
		if vals[0] == "=TRUE" {
			return "any" // a prompt alone
		}
		rule = "formula " + vals[0]
	default:
		rule = r.Condition.Type
	}
	return fmt.Sprintf("%s strict=%v", rule, r.Strict)
}

// SheetsOpen lists the columns of a Google sheet open to edits on its
// first data row: those an unprotected range of its protection covers.
func SheetsOpen(sh *sheetsapi.Sheet) []int {
	var open []int
	for _, pr := range sh.ProtectedRanges {
		for _, u := range pr.UnprotectedRanges {
			if u.StartRowIndex <= 1 && 1 < u.EndRowIndex {
				for c := u.StartColumnIndex; c < u.EndColumnIndex; c++ {
					open = append(open, int(c))
				}
			}
		}
	}
	sort.Ints(open)
	return open
}

// Cells lists the cells of an A1 range ("B2:C9", or one cell), row by
// row.
func Cells(t *testing.T, rng string) []string {
	t.Helper()
	from, to, ok := strings.Cut(rng, ":")
	if !ok {
		to = from
	}
	c0, r0, err := excelize.CellNameToCoordinates(from)
	if err != nil {
		t.Fatal(err)
	}
	c1, r1, err := excelize.CellNameToCoordinates(to)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			out = append(out, backend.CellName(c-1, r))
		}
	}
	return out
}

// golden is the golden file at path, rewritten first with got under
// -update-conformance.
func golden(t *testing.T, path string, got []byte) []byte {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (rewrite the golden files with -update-conformance)", err)
	}
	return want
}

// Golden checks got against the golden file at path, or rewrites the
// file with -update-conformance: for suites of their own that pin what
// every backend gives.
func Golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if want := golden(t, path, got); !bytes.Equal(want, got) {
		t.Errorf("%s differs (-golden +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

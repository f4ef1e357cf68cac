package report

import (
	"cmp"
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// Problems are the problems pull found, grouped by kind, then by
// workbook: each with its sheet and cell.
type Problems struct {
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	Kinds    []ProblemKind `json:"kinds"`
}

// ProblemKind is the problems of one kind: those whose error is one
// sentinel (an invalid answer, a broken rule, a missing unit …), or,
// for problems read from pulled records, which keep no error, those whose
// messages differ only in the values they quote.
type ProblemKind struct {
	Kind      string         `json:"kind"`
	Errors    int            `json:"errors"`
	Warnings  int            `json:"warnings"`
	Workbooks []ProblemGroup `json:"workbooks"`
}

// ProblemGroup is the problems of one kind in one workbook (the file the
// problem names; "" for none): those listed (Options.ProblemsShown and
// ProblemsListed bound them), in pull's order, and how many more there
// are.
type ProblemGroup struct {
	Workbook string           `json:"workbook"`
	Errors   int              `json:"errors"`
	Warnings int              `json:"warnings"`
	Problems records.Problems `json:"problems"`
	More     int              `json:"more,omitempty"`
}

// kinds are the sentinels problems wrap, named as the page names their
// kind; the first that a problem's error is wins.
var kinds = []error{
	decode.ErrInvalidAnswer, decode.ErrRequired, decode.ErrRule, decode.ErrNormalised,
	decode.ErrMissingUnit, decode.ErrDeletedRow, decode.ErrLayout, decode.ErrAnnotator,
	decode.ErrContextEdited, decode.ErrShuffled, decode.ErrOpaqueIDs,
	decode.ErrNotWorkbook, decode.ErrOtherStudy, study.ErrConflict, study.ErrNotFound,
	records.ErrTruncated, records.ErrReplaced, records.ErrBadValue, records.ErrMissingField,
	records.ErrMalformed, records.ErrDuplicateID,
	adjudicate.ErrUnresolved, adjudicate.ErrUnplaced, adjudicate.ErrNotAdjudication,
}

// kindOf names a problem's kind: its sentinel's text, or its message's
// class.
func kindOf(p *records.Problem) string {
	for _, k := range kinds {
		if p.Err != nil && errors.Is(p.Err, k) {
			return k.Error()
		}
	}
	return messageClass(p.Message)
}

var (
	quoted  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	numbers = regexp.MustCompile(`\d+`)
)

// messageClass is a message without the values it quotes and the numbers
// it gives: "\"maybe\" is not one of: Yes, No" and "\"x\" is not one of:
// Yes, No" are one class.
func messageClass(msg string) string {
	s := quoted.ReplaceAllString(msg, `"…"`)
	return numbers.ReplaceAllString(s, "N")
}

// RecordProblems are the problems pulled records carry, for a report of
// records read from files: each names the record's file and unit, and
// the sheet and cell it gives.
func RecordProblems(recs []*records.Annotation) records.Problems {
	var out records.Problems
	for _, r := range recs {
		for _, up := range r.Problems {
			p := &records.Problem{Severity: up.Severity, File: r.Source.File, Record: r.Unit, Message: up.Message}
			if sheet, cell, ok := strings.Cut(up.Cell, "!"); ok {
				p.Sheet, p.Cell = sheet, cell
			} else {
				p.Cell = up.Cell
			}
			out = append(out, p)
		}
	}
	return out
}

// problems groups the problems by kind, then by workbook, listing at most
// shown of each group and listed in all.
func problems(ps records.Problems, shown, listed int) Problems {
	out := Problems{Kinds: []ProblemKind{}}
	at := map[string]int{}
	groups := map[[2]string]int{}
	for _, p := range ps {
		kind := kindOf(p)
		k, ok := at[kind]
		if !ok {
			k = len(out.Kinds)
			at[kind] = k
			out.Kinds = append(out.Kinds, ProblemKind{Kind: kind})
		}
		pk := &out.Kinds[k]
		g, ok := groups[[2]string{kind, p.File}]
		if !ok {
			g = len(pk.Workbooks)
			groups[[2]string{kind, p.File}] = g
			pk.Workbooks = append(pk.Workbooks, ProblemGroup{Workbook: p.File, Problems: records.Problems{}})
		}
		pg := &pk.Workbooks[g]
		if p.Severity == records.Error {
			out.Errors++
			pk.Errors++
			pg.Errors++
		} else {
			out.Warnings++
			pk.Warnings++
			pg.Warnings++
		}
		if len(pg.Problems) == shown || listed == 0 {
			pg.More++
			continue
		}
		listed--
		pg.Problems = append(pg.Problems, p)
	}
	// Kinds with errors first, the most first; workbooks by name.
	slices.SortStableFunc(out.Kinds, func(a, b ProblemKind) int {
		return cmp.Or(cmp.Compare(b.Errors, a.Errors), cmp.Compare(b.Errors+b.Warnings, a.Errors+a.Warnings), cmp.Compare(a.Kind, b.Kind))
	})
	for i := range out.Kinds {
		slices.SortStableFunc(out.Kinds[i].Workbooks, func(a, b ProblemGroup) int { return cmp.Compare(a.Workbook, b.Workbook) })
	}
	return out
}

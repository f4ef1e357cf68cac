package decode

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/suggest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"golang.org/x/text/unicode/norm"
)

// Sentinels of problems found in filled sheets.
var (
	// ErrInvalidAnswer: a cell holds a value its question does not allow.
	ErrInvalidAnswer = errors.New("invalid answer")
	// ErrNormalised: a value was accepted after trimming, case folding or
	// similar; the cell should be fixed but nothing was lost.
	ErrNormalised = errors.New("answer normalised")
	// ErrRule: a conditional rule of the template does not hold.
	ErrRule = errors.New("rule")
	// ErrMissingUnit: a unit's rows are gone from the sheet.
	ErrMissingUnit = errors.New("missing unit")
	// ErrDeletedRow: some of a block's rows are gone from the sheet, and
	// any answers they held with them.
	ErrDeletedRow = errors.New("row deleted")
	// ErrLayout: rows or columns are not where the workbook put them
	// (renamed headers, duplicated rows, extra columns).
	ErrLayout = errors.New("layout changed")
	// ErrAnnotator: the annotator column is missing or contradicts itself.
	ErrAnnotator = errors.New("annotator")
	// ErrRequired: a required question of an answered unit is unanswered.
	ErrRequired = errors.New("required answer missing")
)

// fold normalises text for lenient matching (see suggest.Fold).
func fold(s string) string { return suggest.Fold(s) }

// cellIssue is what reading one cell found: an error or a warning.
type cellIssue struct {
	severity string
	err      error
	msg      string
	// occurrence puts the problem on a span's occurrence column.
	occurrence bool
}

func invalid(format string, args ...any) *cellIssue {
	return &cellIssue{severity: records.Error, err: ErrInvalidAnswer, msg: fmt.Sprintf(format, args...)}
}

func normalised(format string, args ...any) *cellIssue {
	return &cellIssue{severity: records.Warning, err: ErrNormalised, msg: fmt.Sprintf(format, args...)}
}

// parseChoice reads a choice cell: a label (what the dropdown offers), or
// a code. Exact matches are silent; matches after trimming and case folding
// are warnings; anything else is an error naming the allowed labels.
func parseChoice(q *templates.Question, cell string) (string, *cellIssue) {
	// The same text in another Unicode form (an accent typed as a letter
	// and a combining mark, as macOS does) is the same label.
	nfc := norm.NFC.String(cell)
	for _, o := range q.Options {
		if nfc == norm.NFC.String(o.Label) || nfc == norm.NFC.String(o.Code) {
			return o.Code, nil
		}
	}
	f := fold(cell)
	for _, o := range q.Options {
		if f == fold(o.Label) || f == fold(o.Code) {
			return o.Code, normalised("%s read as %q; pick it from the list", records.QuoteCell(cell), o.Label)
		}
	}
	return "", invalid("%s is not one of: %s%s", records.QuoteCell(cell), labelList(q), q.SuggestLabel(cell))
}

func labelList(q *templates.Question) string {
	var out []string
	for _, o := range q.Options {
		out = append(out, o.Label)
	}
	return strings.Join(out, "; ")
}

// Spellings of a ticked and an unticked checkbox: those the live checks
// read a checkbox with, so that the sheet and pull never disagree.
var (
	yes = templates.CheckboxTrue
	no  = templates.CheckboxFalse
)

// parseBool reads a checkbox: TRUE/FALSE, 1/0, x, yes/no and the like.
// Spellings other than TRUE/FALSE and 1/0 (what spreadsheets store) are
// accepted silently too: they are what people type into a checkbox column.
func parseBool(cell string) (bool, *cellIssue) {
	f := fold(cell)
	switch {
	case slices.Contains(yes, f):
		return true, nil
	case slices.Contains(no, f):
		return false, nil
	case isNumber(f):
		if v, _ := strconv.ParseFloat(f, 64); v == 1 || v == 0 {
			return v == 1, nil
		}
	}
	return false, invalid("%s is not a checkbox value; use TRUE or FALSE", records.QuoteCell(cell))
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// parseWhole reads a whole number, as a number cell ("4"), a number typed as
// text ("4", " 4 ") or one with a zero fraction ("4.0").
func parseWhole(cell string) (int, bool) {
	s := strings.TrimSpace(cell)
	if n, err := strconv.Atoi(s); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1e15 {
		return 0, false
	}
	return int(f), true
}

// parseScale reads a scale cell. ok is false for the not-yet-answered
// value, which reads as no answer.
func parseScale(q *templates.Question, cell string) (n int, ok bool, issue *cellIssue) {
	n, isWhole := parseWhole(cell)
	if !isWhole {
		return 0, false, invalid("%s is not a whole number from %d to %d", records.QuoteCell(cell), *q.Min, *q.Max)
	}
	if q.Unanswered != nil && n == *q.Unanswered {
		return 0, false, nil
	}
	if n < *q.Min || n > *q.Max {
		return 0, false, invalid("%d is outside the scale %d to %d", n, *q.Min, *q.Max)
	}
	return n, true, nil
}

var codeSep = regexp.MustCompile(`\s*[,;]\s*`)

// parseCodeList reads a multi question rendered as one cell of codes,
// canonically "2,3". Spaces, semicolons and case differences are accepted
// with a warning.
func parseCodeList(q *templates.Question, cell string) ([]string, *cellIssue) {
	var issue *cellIssue
	var codes []string
	lenient := false
	for _, part := range codeSep.Split(strings.TrimSpace(cell), -1) {
		if part == "" {
			continue
		}
		var code string
		for _, o := range q.Options {
			if part == o.Code {
				code = o.Code
			}
		}
		if code == "" {
			for _, o := range q.Options {
				if fold(part) == fold(o.Code) || fold(part) == fold(o.Label) {
					code, lenient = o.Code, true
				}
			}
		}
		if code == "" {
			var all []string
			for _, o := range q.Options {
				all = append(all, o.Code)
			}
			return nil, invalid("%s in %s is not one of the codes %s%s", records.QuoteCell(part), records.QuoteCell(cell), strings.Join(all, ", "), q.SuggestCode(part))
		}
		if !slices.Contains(codes, code) {
			codes = append(codes, code)
		}
	}
	slices.Sort(codes)
	canon := strings.Join(codes, ",")
	if lenient || cell != canon && strings.TrimSpace(cell) != "" {
		issue = normalised("%s read as %q", records.QuoteCell(cell), canon)
	}
	return codes, issue
}

var sentenceSep = regexp.MustCompile(`[\s,;]+`)

// parseEvidence reads a passage number and a list of sentence numbers
// ("3", "3, 4", "3-5", "S3") and checks them against the record's passages.
func parseEvidence(passageCell, sentencesCell string, counts []int) (*records.Evidence, *cellIssue, *cellIssue) {
	p, ok := parseWhole(strings.TrimPrefix(strings.TrimSpace(strings.ToUpper(passageCell)), "P"))
	var pIssue, sIssue *cellIssue
	switch {
	case strings.TrimSpace(passageCell) == "":
		pIssue = invalid("evidence sentences are given but no passage")
	case !ok:
		pIssue = invalid("%s is not a passage number", records.QuoteCell(passageCell))
	case p < 1 || p > len(counts):
		pIssue = invalid("there is no passage %d; this record has passages 1 to %d", p, len(counts))
	}
	var sentences []int
	for _, part := range sentenceSep.Split(strings.TrimSpace(sentencesCell), -1) {
		if part == "" {
			continue
		}
		part = strings.TrimPrefix(strings.ToUpper(part), "S")
		lo, hi, isRange := strings.Cut(part, "-")
		a, okA := parseWhole(lo)
		b := a
		okB := true
		if isRange {
			b, okB = parseWhole(hi)
		}
		if !okA || !okB || b < a || b-a > 1000 {
			return nil, pIssue, invalid("%s is not a list of sentence numbers (e.g. 3, 4 or 3-5)", records.QuoteCell(sentencesCell))
		}
		for n := a; n <= b; n++ {
			if !slices.Contains(sentences, n) {
				sentences = append(sentences, n)
			}
		}
	}
	slices.Sort(sentences)
	if len(sentences) == 0 {
		sIssue = invalid("evidence needs sentence numbers as well as the passage")
	} else if pIssue == nil {
		for _, s := range sentences {
			if s < 0 || s >= counts[p-1] {
				sIssue = invalid("passage %d has sentences 0 to %d; there is no sentence %d", p, counts[p-1]-1, s)
				break
			}
		}
	}
	if pIssue != nil || sIssue != nil {
		return nil, pIssue, sIssue
	}
	return &records.Evidence{Passage: p, Sentences: sentences}, nil, nil
}

// hasText reports whether a cell holds anything but white space.
func hasText(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) }) >= 0
}

// typeIssue says why a cell of a type other than text or number cannot be
// q's answer, or nil when its text is read as usual: a boolean or a date
// where a number, a checkbox or codes are asked for, a formula's error,
// a formula with no saved value.
func typeIssue(q *templates.Question, key string, c backend.ReadCell) *cellIssue {
	switch c.Type {
	case backend.CellNoValue:
		return invalid("a formula with no saved value (=%s): open the workbook in a spreadsheet application and save it, or type the value", c.Formula)
	case backend.CellError:
		return invalid("the cell shows the formula error %s; type the answer instead", c.Value)
	}
	checkbox := q.Type == templates.TypeBool || (q.Type == templates.TypeMulti && strings.Contains(key, "="))
	coded := q.Type == templates.TypeEvidence || (q.Type == templates.TypeMulti && !checkbox)
	switch {
	case c.Type == backend.CellBool && q.Type == templates.TypeScale:
		return invalid("%s is a true/false value, not a whole number from %d to %d", c.Value, *q.Min, *q.Max)
	case c.Type == backend.CellDate && q.Type == templates.TypeScale:
		return invalid("the cell shows the date %s, not a whole number from %d to %d (the spreadsheet application turned what was typed into a date: type the number again)", c.Shown, *q.Min, *q.Max)
	case c.Type == backend.CellDate && checkbox:
		return invalid("the cell shows the date %s, not a checkbox value; use TRUE or FALSE", c.Shown)
	case c.Type == backend.CellDate && coded:
		return invalid("the cell shows the date %s: the spreadsheet application turned what was typed into a date; type it again starting with an apostrophe (')", c.Shown)
	}
	return nil
}

package adjudicate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// summarySheet counts, per question, what was accepted and what is left.
func (b *Book) summarySheet(sheets []*sheetOf) *backend.Sheet {
	t := b.Template
	rows := [][]string{
		{fmt.Sprintf("Adjudication of %s (version %d) for %s", t.Name, t.Version, b.Adjudicator)},
		{fmt.Sprintf("%s with a complete answer from %s. Answers the annotators agree on are accepted without a row; each row of this workbook's sheets is one disagreement to decide.", words.Count(b.Summary.Units, "unit"), words.Count(b.Summary.Annotators, "annotator"))},
		{},
		{"Question", "Accepted: unanimous", "Accepted: majority", "To decide (all workbooks)", "Rows in this workbook", "Sheet"},
	}
	inBook := map[string]*sheetOf{}
	for _, s := range sheets {
		inBook[s.items[0].Question] = s
	}
	for _, q := range b.Summary.Questions {
		n, name := 0, ""
		if s := inBook[q.Question]; s != nil {
			n, name = len(s.items), s.name
		}
		rows = append(rows, []string{q.Header, strconv.Itoa(q.Unanimous), strconv.Itoa(q.Majority), strconv.Itoa(q.ToDecide), strconv.Itoa(n), name})
	}
	for _, q := range b.Summary.Questions {
		if q.Carried > 0 {
			rows = append(rows, []string{fmt.Sprintf("%s is not adjudicated: where the annotators' answers differ (%s), the gold set keeps each annotator's answer, and has no rows here.", q.Header, words.Count(q.Carried, "unit"))})
		}
	}
	widths := []float64{30, 16, 16, 18, 16, 20}
	cols := make([]backend.Column, len(widths))
	for i, w := range widths {
		cols[i] = backend.Column{Width: w, Style: backend.Style{Wrap: true}}
	}
	return &backend.Sheet{
		Name: SheetSummary, Columns: cols, RowCount: len(rows), FitWidth: true, Protect: &backend.Protection{FormatColumns: true, FormatRows: true},
		Merges: []backend.Merge{{FirstRow: 1, LastRow: 1, FirstCol: 0, LastCol: len(widths) - 1}, {FirstRow: 2, LastRow: 2, FirstCol: 0, LastCol: len(widths) - 1}},
		Rows: func(emit func(backend.Row) error) error {
			for i, texts := range rows {
				r := backend.Row{Cells: make([]backend.Cell, len(widths))}
				for k, s := range texts {
					st := backend.Style{Wrap: true}
					switch {
					case i == 0:
						st.Bold, st.Size = true, 14
					case i == 3:
						st = layout.StyleHeader
					}
					var v any = s
					if n, err := strconv.Atoi(s); err == nil && i > 3 {
						v = n
					}
					r.Cells[k] = backend.Cell{Value: v, Style: st}
				}
				if i == 1 {
					r.Height = 48
				}
				if err := emit(r); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// instructions is the adjudicator's Instructions sheet: what each sheet
// and column is for, what pull does with it, and the template's own
// guideline and categories.
func (b *Book) instructions(sheets []*sheetOf) *backend.Sheet {
	t := b.Template
	in := &layout.Instructions{}
	in.Title("Adjudication: " + t.Title)
	in.Hint(fmt.Sprintf("Template %s, version %d · adjudicator %s · %d rows to decide", t.Name, t.Version, b.Adjudicator, len(b.Items)))
	in.Heading("What to do")
	in.Prose(`Several annotators answered the same units, and here they disagree. Each row is one disagreement: one question of one unit, or one cluster of overlapping spans. Read the unit's context, compare the annotators' answers, and give the answer that follows the guideline below. Answers every annotator agreed on are already accepted and are not shown; the Summary sheet counts them.`)
	who := "Annotators are shown under neutral names (Annotator 1, Annotator 2 …), the same name for the same person on every sheet, so that who answered does not sway the decision. The coordinator keeps the key."
	if len(b.Names) > 0 && b.Names[0] == b.Annotators[0] {
		who = "Annotators are shown by their IDs."
	}
	in.Prose(who + " A dash (" + notAsked + ") means the annotator had no complete answer for that unit.")
	for _, s := range sheets {
		if s.kind == KindSpans {
			in.Heading("The " + s.name + " sheet")
			in.Prose(`The spans all annotators marked in a unit are grouped by overlap: spans that share a character, directly or through another span, form one cluster, and each cluster is one row. Answer rows without a span (such as missing information) are grouped by their type. Each annotator's cell lists their spans in the cluster, one per line: the text, its type, and its evidence.`)
			in.Bullet("Decision: keep (the suggested version), drop (no span here), edit (the span you copy into Final span), or an annotator's name (that annotator's version, with its evidence).")
			in.Bullet("Final type: the type the kept spans get, when it differs; required with edit.")
			in.Bullet("Final span: with edit, copy the span's text exactly from its field; where the text occurs more than once, the occurrence in or nearest to the cluster is taken. Leave it empty for a row without a span.")
			continue
		}
		in.Heading("The " + s.name + " sheet")
		in.Prose(fmt.Sprintf("One row per unit whose annotators answered %q differently. Suggested is the answer most annotators gave; it is blank on a tie.", s.q.Header))
		switch s.q.Type {
		case templates.TypeMulti:
			in.Bullet("Final: tick every option that applies, one checkbox column per option. A row with no box ticked is not decided yet, unless you give a Reason: then it means none applies.")
		case templates.TypeChoice:
			in.Bullet("Final: pick the answer from the dropdown.")
		case templates.TypeScale:
			in.Bullet(fmt.Sprintf("Final: a whole number from %d to %d.", *s.q.Min, *s.q.Max))
		case templates.TypeBool:
			in.Bullet("Final: tick or untick the box.")
		default:
			in.Bullet("Final: type the answer.")
		}
		in.Bullet("Or use: instead of filling Final, take the suggested answer or one annotator's. A filled Final wins over it.")
	}
	in.Heading("Every sheet")
	in.Bullet("Reason: why the final answer is what it is: " + strings.Join(Reasons, ", ") + ". Note: anything else worth keeping.")
	in.Bullet("A row you leave undecided stays unresolved: the gold set has no value there, and pull names the row's cell.")
	in.Bullet("Sort, filter and move rows as you like: pull finds each row by its Decision ID. Do not change the IDs, and do not delete rows: a deleted row is reported, and its question stays unresolved.")
	in.Bullet(fmt.Sprintf("When you are done, return the workbook; the coordinator runs pull on the adjudication's folder, which writes the gold set with annotator %q and, for every value, how it was decided.", records.GoldAnnotator))
	if strings.TrimSpace(t.Instructions) != "" {
		in.Heading("The annotators' guideline")
		in.Prose(t.Instructions)
	}
	in.Categories(t)
	return in.Sheet()
}

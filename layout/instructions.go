package layout

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/templates"
)

// The Instructions sheet has four columns; prose spans the first three,
// some 80 characters wide, so that its lines stay easy to read.
var instrWidths = []float64{24, 14, 40, 18}

const (
	instrCols  = 4
	instrProse = 3 // columns a paragraph spans
)

var (
	styleTitle   = backend.Style{Bold: true, Size: 16, Wrap: true}
	styleHeading = backend.Style{Bold: true, Size: 13}
	styleSub     = backend.Style{Bold: true, Wrap: true}
	styleProse   = backend.Style{Wrap: true}
	styleHint    = backend.Style{Italic: true, Color: fontHint, Wrap: true}
	styleTHead   = backend.Style{Bold: true, Fill: fillHeader, Wrap: true}
	styleTCell   = backend.Style{Wrap: true}
)

type instr struct {
	rows   []backend.Row
	merges []backend.Merge
}

// prose adds a paragraph across the whole width.
func (in *instr) prose(text string, st backend.Style) {
	r := backend.Row{Cells: make([]backend.Cell, instrCols)}
	r.Cells[0] = backend.Cell{Value: text, Style: st}
	width := 0.0
	for _, w := range instrWidths[:instrProse] {
		width += w
	}
	r.Height = textHeight(text, width, st.Size)
	in.rows = append(in.rows, r)
	n := len(in.rows)
	in.merges = append(in.merges, backend.Merge{FirstRow: n, LastRow: n, FirstCol: 0, LastCol: instrProse - 1})
}

// table adds a row of cells, one per column.
func (in *instr) table(st backend.Style, cells ...string) {
	r := backend.Row{Cells: make([]backend.Cell, instrCols)}
	h := 0.0
	for i, c := range cells {
		if c != "" {
			r.Cells[i] = backend.Cell{Value: c, Style: st}
		}
		h = max(h, textHeight(c, instrWidths[i], st.Size))
	}
	r.Height = h
	in.rows = append(in.rows, r)
}

func (in *instr) blank() { in.rows = append(in.rows, backend.Row{}) }

// textHeight estimates the height of wrapped text in a column of the given
// width and font size; 0 leaves a one-line row to the application.
func textHeight(s string, width, size float64) float64 {
	if size == 0 {
		size = 11
	}
	// Lines past what the tallest row holds at this size do not count.
	lines := countLines(s, width*11/size, int(MaxRowHeight*11/(size*15))+1)
	if lines <= 1 && size <= 11 {
		return 0
	}
	return min(math.Ceil(float64(lines)*size*15/11)+4, MaxRowHeight)
}

var listLine = regexp.MustCompile(`^\s*([-*•]|\d+[.)])\s`)

// paragraphs splits instructions at blank lines and unwraps each paragraph,
// keeping the line breaks before list items.
func paragraphs(text string) []string {
	var out []string
	for _, block := range regexp.MustCompile(`\n\s*\n`).Split(strings.TrimSpace(text), -1) {
		var b strings.Builder
		for i, line := range strings.Split(block, "\n") {
			line = strings.TrimSpace(line)
			if i > 0 {
				if listLine.MatchString(line) {
					b.WriteByte('\n')
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(line)
		}
		out = append(out, b.String())
	}
	return out
}

func (b *builder) instructionsSheet() *backend.Sheet {
	t := b.t
	in := &instr{}
	in.prose(t.Title, styleTitle)
	if t.Summary != t.Title {
		in.prose(t.Summary, styleHint)
	}
	in.prose(fmt.Sprintf("Template %s, version %d · batch %s · %s", t.Name, t.Version, b.opt.Batch, words.Count(len(b.res.Units), "unit")), styleHint)
	in.blank()
	in.prose("Instructions", styleHeading)
	for _, p := range paragraphs(t.Instructions) {
		in.prose(p, styleProse)
	}
	in.blank()
	in.prose("How to fill in the Annotate sheet", styleHeading)
	for _, p := range b.howTo() {
		in.prose("• "+p, styleProse)
	}
	in.blank()
	in.prose("Columns", styleHeading)
	in.table(styleTHead, "Column", "Kind", "What it holds, or what to enter", "Required")
	for _, c := range b.cols {
		if cells, ok := questionGuide(t, c); ok {
			in.table(styleTCell, cells...)
		}
		kind, what, req := b.guide(c)
		if kind == "" {
			continue
		}
		in.table(styleTCell, c.Header, kind, what, req)
	}
	in.categories(t)
	for i := range t.Rules {
		r := &t.Rules[i]
		if i == 0 {
			in.blank()
			in.prose("Checks made when the sheets are collected", styleHeading)
		}
		in.prose(fmt.Sprintf("• %s (%s)", r.Message, r.Severity), styleProse)
	}
	return in.sheet()
}

// categories adds a table of each choice and multi question's labels,
// codes and meanings, under one heading.
func (in *instr) categories(t *templates.Template) {
	legend := false
	for i := range t.Questions {
		q := &t.Questions[i]
		if len(q.Options) == 0 {
			continue
		}
		if !legend {
			in.blank()
			in.prose("Categories", styleHeading)
			legend = true
		}
		in.blank()
		in.prose(q.Header, styleSub)
		in.table(styleTHead, "Label (what you pick)", "Code (recorded)", "Meaning", "")
		for _, o := range q.Options {
			in.table(styleTCell, o.Label, o.Code, o.Description, "")
		}
	}
}

// sheet is the Instructions sheet of the rows added, locked.
func (in *instr) sheet() *backend.Sheet {
	cols := make([]backend.Column, instrCols)
	for i, w := range instrWidths {
		cols[i] = backend.Column{Width: w}
	}
	rows := in.rows
	return &backend.Sheet{
		Name: backend.SheetInstructions, Columns: cols, RowCount: len(rows), Merges: in.merges, FitWidth: true,
		Protect: &backend.Protection{FormatColumns: true, FormatRows: true},
		Rows: func(emit func(backend.Row) error) error {
			for _, r := range rows {
				if r.Cells == nil {
					r.Cells = make([]backend.Cell, instrCols)
				}
				if err := emit(r); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// howTo is the part of the instructions that follows from the layout.
func (b *builder) howTo() []string {
	t := b.t
	var out []string
	out = append(out, b.colourGuide())
	switch t.Rows.Per {
	case templates.PerRecord:
		out = append(out, fmt.Sprintf("Each row is one instance; the %q column names it.", t.Rows.IDHeader))
	case templates.PerElement:
		out = append(out, fmt.Sprintf("Each row is one item to judge. Rows with the same %q belong to the same instance.", t.Rows.IDHeader))
	case templates.PerBlock:
		out = append(out, fmt.Sprintf("Each instance is a block of %d rows with the same %q: the first row shows the context, every row takes one answer. Need more rows? Insert them inside the block (right-click a row number, Insert).", t.Rows.AnswerRows, t.Rows.IDHeader))
	}
	out = append(out, b.frozenGuide())
	if b.colOpt.Suggestions {
		out = append(out, "The grey \"Suggested\" columns show an answer suggested for the question beside them. The answer cells are empty: give your own answer, whether it is the suggested one or not.")
	}
	if b.checkMark() {
		out = append(out, "Some answer cells are filled in already with suggested answers, shown in blue italics while you leave them as they are. Check each: keep it, change it, or clear it if the row needs no answer there. Your changes are told apart from the suggestions when the sheets are collected.")
	}
	out = append(out, b.annotatorGuide())
	for _, q := range t.Questions {
		if q.Type == templates.TypeMulti && q.Render == "checkboxes" || q.Type == templates.TypeBool {
			out = append(out, "Checkbox columns take TRUE (ticked) or FALSE. Leave them empty until you have judged the row.")
			break
		}
	}
	out = append(out, b.spanGuide()...)
	if s, _, _ := b.checkGuide(); s != "" {
		out = append(out, s)
	}
	out = append(out, "Selecting an answer cell shows what it expects; the header notes explain every column.")
	if t.Rows.Per == templates.PerBlock {
		out = append(out, "You may filter, resize columns and rows, and add columns of your own. Do not sort (blocks would be torn apart), rename headers or change the ID column.")
	} else {
		out = append(out, "You may sort and filter, resize columns and rows, and add columns of your own. Do not rename headers or change the ID column.")
	}
	return out
}

// columnGuide describes a column for the Columns table; kind "" skips it.
func columnGuide(t *templates.Template, c templates.ColumnSpec) (kind, what, req string) {
	switch c.Role {
	case templates.RoleID:
		return "context", "Identifies the instance the row belongs to.", ""
	case templates.RoleContext:
		what = c.Context.Description
		if what == "" {
			what = "Shown for you to read."
		}
		return "context", what, ""
	case templates.RoleAnnotator:
		return "your ID", "Your annotator ID.", "yes"
	case templates.RoleUnit, templates.RoleSuggestion:
		return "", "", ""
	}
	q := c.Question
	req = requiredGuide(t, q)
	what = q.Description
	switch {
	case c.Option != nil:
		// Required as a whole: see questionGuide.
		kind, what, req = "checkbox", c.Option.Description, ""
	case c.Part == templates.PartPassage:
		kind, what = "number", "The passage that holds the evidence."
	case c.Part == templates.PartSentences:
		kind, what = "numbers", "The evidence sentences in that passage, separated by commas."
	case c.Part == templates.PartOccurrence:
		kind, what, req = "number", "Only when the copied text occurs more than once: which occurrence you mean, counting from the start. In \"the cat saw the dog\", the second \"the\" is 2. Empty when the text occurs once.", ""
	case q.Type == templates.TypeChoice:
		kind = "dropdown"
	case q.Type == templates.TypeMulti:
		kind = "codes"
	case q.Type == templates.TypeScale:
		kind = fmt.Sprintf("number %d–%d", *q.Min, *q.Max)
		if q.Unanswered != nil {
			what = strings.TrimSpace(fmt.Sprintf("%s %d means not answered yet.", what, *q.Unanswered))
		}
	case q.Type == templates.TypeBool:
		kind = "checkbox"
	case q.Type == templates.TypeSpan:
		kind = "copied text"
		if cx := t.ContextByName(q.Field); cx != nil {
			what = strings.TrimSpace(fmt.Sprintf("%s Copied from %q.", what, cx.Header))
		}
	default:
		kind = "text"
	}
	if q.Scope == "block" {
		what = strings.TrimSpace(what + " On the first row of each block only.")
	}
	return kind, what, req
}

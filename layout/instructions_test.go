package layout_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/plantest"
)

// instructionRows is the text of each row of the Instructions sheet, its
// empty cells left out.
func instructionRows(t *testing.T, p *backend.Plan) [][]string {
	t.Helper()
	var out [][]string
	for _, r := range plantest.Rows(t, plantest.Sheet(t, p, backend.SheetInstructions)) {
		var cells []string
		for _, c := range r.Cells {
			cells = append(cells, plantest.Text(c))
		}
		out = append(out, cells)
	}
	return out
}

// howTo is the how-to bullet of the Instructions that contains sub.
func howTo(rows [][]string, sub string) string {
	for _, r := range rows {
		if strings.HasPrefix(r[0], "• ") && strings.Contains(r[0], sub) {
			return r[0]
		}
	}
	return ""
}

// colourWords are the names the Instructions give colours.
var colourWords = map[string]string{
	"DDEBF7": "pale blue", "FCE4D6": "pale orange", "E2EFDA": "pale green", "EDE2F6": "pale purple",
	"F2F2F2": "light grey", "E7E6E6": "light grey", "": "white",
}

// TestInstructionsTrue checks, for every built-in, that the Instructions
// describe the Annotate sheet as it is drawn: the colours of its answer
// and context cells, what is locked, what stays in view, which columns
// pull requires, and the occurrence column.
func TestInstructionsTrue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// want are texts the how-to must say; the colours are checked
		// against the cells drawn.
		want []string
		// required lists the Columns table's rows with a Required cell,
		// as column: required.
		required []string
	}{
		{
			name: "legal-gaps",
			want: []string{
				"Answer in the coloured cells.",
				`The header row stays at the top, and the "ID" and answer columns stay at the left while you scroll right through the texts.`,
			},
			required: []string{"Gaps: yes: tick at least one", "Annotator ID: yes"},
		},
		{
			name: "qa-span-errors",
			want: []string{
				`they are locked, except "Prediction", from which you copy text.`,
				`"Checked" and "Corrected prediction" are answered once per block, on its first row; below it the cells are light grey and locked.`,
				`Copy the text of "Error span" and "Repeated text" exactly from "Prediction"`,
				`If the text you copy occurs more than once in "Prediction", say which one you mean in "Error span: occurrence", counting from the start: in "the cat saw the dog", the second "the" is occurrence 2.`,
			},
			required: []string{"Checked: yes", "Error type: yes, on each row you use", "Annotator ID: yes"},
		},
		{
			name:     "factgenie-meta-eval",
			want:     []string{"Answer in the white cells.", `The colour of the "ID" column (pale blue, pale orange, pale green and pale purple, in turn)`},
			required: []string{"Error span OK?: yes", "Explanation OK?: yes", "Annotator ID: yes"},
		},
		{
			name: "preference-likert",
			want: []string{"Answer in the coloured cells."},
			required: []string{"Best prediction (reference): yes", "Best prediction (topic): yes", "First prediction likert: yes",
				"Second prediction likert: yes", "Third prediction likert: yes", "Annotator ID: yes"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tp, res := plantest.Build(t, c.name, layout.Options{}, builtinInputs[c.name])
			rows := instructionRows(t, res.Plan)
			for _, w := range c.want {
				if howTo(rows, w) == "" {
					t.Errorf("the how-to does not say %q", w)
				}
			}
			// The colours drawn on answer and context cells are the ones
			// named, and nothing is called white that is not.
			colours := howTo(rows, "Answer in the")
			annotate := plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetAnnotate))
			answerFills := map[string]bool{}
			for _, r := range annotate[1:] {
				for i, col := range tp.Columns() {
					st := r.Cells[i].Style
					switch {
					case col.Role == templates.RoleAnswer && st.Unlocked:
						answerFills[st.Fill] = true
					case col.Role == templates.RoleContext:
						if name := colourWords[st.Fill]; !strings.Contains(colours, "The "+name+" columns show what you judge") {
							t.Errorf("context drawn %s (%s); the how-to says %q", st.Fill, name, colours)
						}
					}
				}
			}
			for fill := range answerFills {
				if name := colourWords[fill]; name == "" || !strings.Contains(colours, name) {
					t.Errorf("answer cells drawn %q (%s); the how-to says %q", fill, name, colours)
				}
			}
			if white := strings.Contains(colours, "white cells"); white != answerFills[""] {
				t.Errorf("answer cells unfilled: %v; the how-to says %q", answerFills[""], colours)
			}
			// Required is said where pull requires, once per question.
			var required []string
			table := false
			for _, r := range rows {
				switch {
				case r[0] == "Column" && r[3] == "Required":
					table = true
				case r[0] == "Categories":
					table = false
				case table && r[3] != "":
					required = append(required, r[0]+": "+r[3])
				}
			}
			if !slices.Equal(required, c.required) {
				t.Errorf("Required cells %q, want %q", required, c.required)
			}
		})
	}
}

// TestInstructionsReadable checks that paragraphs wrap at a readable
// width: every merged paragraph spans at most 80 characters of width.
func TestInstructionsReadable(t *testing.T) {
	t.Parallel()
	_, res := plantest.Build(t, "legal-gaps", layout.Options{}, builtinInputs["legal-gaps"])
	sh := plantest.Sheet(t, res.Plan, backend.SheetInstructions)
	if len(sh.Merges) == 0 {
		t.Fatal("no paragraphs merged")
	}
	for _, m := range sh.Merges {
		width := 0.0
		for _, c := range sh.Columns[m.FirstCol : m.LastCol+1] {
			width += c.Width
		}
		if width > 80 || width < 60 {
			t.Errorf("row %d: a paragraph %v characters wide", m.FirstRow, width)
		}
	}
}

// TestInstructionsForOneAnnotator checks the how-to of a workbook made for
// one annotator: their ID is there already.
func TestInstructionsForOneAnnotator(t *testing.T) {
	t.Parallel()
	_, res := plantest.Build(t, "legal-gaps", layout.Options{Annotator: "ak"}, builtinInputs["legal-gaps"])
	rows := instructionRows(t, res.Plan)
	if howTo(rows, `Your annotator ID, ak, is filled in for you in the "Annotator ID" column`) == "" || howTo(rows, "Write your annotator ID") != "" {
		t.Errorf("the how-to does not say the ID is filled in")
	}
}

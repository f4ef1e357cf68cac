package layout_test

import (
	"context"
	"fmt"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// Build lays out the workbook for a template and its records; a backend
// then renders the plan.
func ExampleBuild() {
	tmpl, err := templates.Builtin("legal-gaps")
	if err != nil {
		panic(err)
	}
	src, err := input.Open(tmpl.Input.Format, []string{"../examples/legal-gaps.jsonl"})
	if err != nil {
		panic(err)
	}
	res, err := layout.Build(context.Background(), tmpl, src, layout.Options{Batch: "b01"})
	if err != nil {
		panic(err) // Problems: one per bad record, with file and line
	}
	defer res.Close() // once the plan is written: it frees the rows kept for it
	for _, s := range res.Plan.Sheets {
		fmt.Printf("%s: %d rows\n", s.Name, s.RowCount)
	}
	for _, u := range res.Units {
		fmt.Printf("unit %s on row %d\n", u.ID, u.FirstRow)
	}
	// Output:
	// Instructions: 51 rows
	// Annotate: 3 rows
	// Read: 45 rows
	// _annosheet: 5 rows
	// unit gpt4o-12 on row 2
	// unit llama3-12 on row 3
}

// Clean makes text safe for a cell and says what it changed.
func ExampleClean() {
	s, r := layout.Clean("bell\x07", backend.XLSXCellLimit)
	fmt.Printf("%q, %d control character replaced\n", s, r.Controls)
	// Output:
	// "bell␇", 1 control character replaced
}

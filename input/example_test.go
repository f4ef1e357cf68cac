package input_test

import (
	"fmt"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
)

// Open reads the records of the template's input format; each knows its
// file and line, for messages that point at the user's data.
func ExampleOpen() {
	t, err := input.Template("legal-gaps", nil)
	if err != nil {
		panic(err)
	}
	src, err := input.Open(t.Input.Format, []string{"../examples/legal-gaps.jsonl"})
	if err != nil {
		panic(err)
	}
	err = src.Each(func(r *layout.Record) error {
		id := r.Data.(map[string]any)["id"]
		fmt.Printf("record %d: %s at %s:%d\n", r.Index, id, r.File, r.Line)
		return nil
	})
	fmt.Println(err)
	// Output:
	// record 0: gpt4o-12 at ../examples/legal-gaps.jsonl:1
	// record 1: llama3-12 at ../examples/legal-gaps.jsonl:2
	// <nil>
}

// A factgenie folder joins the outputs with every evaluator's spans.
func ExampleOpenFactgenie() {
	src, err := input.OpenFactgenie([]string{"../examples/factgenie"})
	if err != nil {
		panic(err)
	}
	src.Each(func(r *layout.Record) error {
		m := r.Data.(map[string]any)
		fmt.Printf("%s/%v: %d spans\n", m["setup_id"], m["example_idx"], len(m["spans"].([]any)))
		return nil
	})
	// Output:
	// gemma2/0: 6 spans
	// gemma2/1: 9 spans
	// gpt4o/0: 4 spans
	// gpt4o/1: 2 spans
}

// A Spool reads its input once; a batch reads only its own records.
func ExampleSpool() {
	src, err := input.Open("jsonl", []string{"../examples/legal-gaps.jsonl"})
	if err != nil {
		panic(err)
	}
	spool := input.NewSpool(src)
	defer spool.Close()
	n := 0
	spool.Each(func(*layout.Record) error { n++; return nil }) // copies the input
	fmt.Println(n, "records")
	spool.Subset([]int{1}).Each(func(r *layout.Record) error {
		fmt.Println("batch of one:", r.Index, r.Line)
		return nil
	})
	// Output:
	// 2 records
	// batch of one: 1 2
}

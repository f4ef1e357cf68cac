package templates_test

import (
	"encoding/json"
	"fmt"

	"github.com/annosheet/annosheet/templates"
)

func ExampleBuiltin() {
	t, err := templates.Builtin("legal-gaps")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Name, "version", t.Version)
	for _, c := range t.Columns() {
		fmt.Println(c.Header)
	}
	// Output:
	// legal-gaps version 1
	// ID
	// 0 No gap
	// 1 Intrinsic error/LLM error
	// 2 Target Mismatch
	// 3 Citation Error
	// Note
	// Check
	// Previous context
	// Cited paragraphs
	// Generation
	// Target
	// Annotator ID
	// Unit
}

func ExampleParseFormat() {
	f, err := templates.ParseFormat("q{$i:04}")
	if err != nil {
		fmt.Println(err)
		return
	}
	env := func(root string) (any, bool) {
		if root == "$i" {
			return json.Number("7"), true // the record's position in the input
		}
		return nil, false
	}
	id, err := f.Render(env)
	fmt.Println(id, err)
	// Output:
	// q0007 <nil>
}

func ExampleLoad() {
	src := `name: demo
version: 1
title: Demo
instructions: Rate each answer.
input: {id: "{id}"}
rows: {per: record}
context:
  - name: answer
    path: answer
questions:
  - name: rating
    type: scale
    min: 5
    max: 1
  - name: rating
    type: txt
`
	_, err := templates.Load("demo.yaml", []byte(src))
	fmt.Println(err)
	// Output:
	// demo.yaml:11: question "rating": min 5 must be below max 1
	// demo.yaml:15: question "rating" is declared twice
	// demo.yaml:15: question "rating": type "txt" is not one of choice, multi, scale, bool, text, span, evidence
}

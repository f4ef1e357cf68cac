package study

import "github.com/annosheet/annosheet/agreement"

// QuestionData is what one question of an agreement report was compared
// on: the values agree paired, as the agreement package took them.
type QuestionData struct {
	// Kind is the question type whose metrics it got (Question.Type).
	Kind string
	// Table holds the values of every kind but span; Spans a span
	// question's spans.
	Table agreement.Table
	Spans agreement.SpanTable
	// Options are the declared codes (a bool's "false" and "true", a
	// span question's labels); Levels a scale's levels.
	Options []string
	Levels  []float64
}

// Data is the data a.Questions[i] was compared on, made again from the
// same records: for a reader that shows the values themselves (a
// confusion matrix, the units where annotators differ), so that it pairs
// them exactly as the agreement did.
func (a *Agreement) Data(i int) QuestionData {
	td := a.compared[i].data(a.set)
	return QuestionData{Kind: td.kind, Table: td.table, Spans: td.spans, Options: td.options, Levels: td.levels}
}

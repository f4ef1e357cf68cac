// Package recordtest gives tests of canonical records a small template
// (et: a choice, a multi, a scale and a span) and its records as pull
// writes them.
package recordtest

import (
	_ "embed"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// YAML is the template's source.
//
//go:embed et.yaml
var YAML string

// Template loads the template.
func Template(t testing.TB) *templates.Template {
	t.Helper()
	tp, err := templates.Load("et.yaml", []byte(YAML))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// Line is a canonical record of the template as pull writes it, with
// values as JSON.
func Line(unit, annotator, status, values string) string {
	return `{"schema":"annosheet.annotation/1","template":{"name":"et","version":2},"batch":"b01","unit":"` + unit +
		`","item":"` + unit + `","annotator":"` + annotator + `","status":"` + status + `","values":` + values +
		`,"source":{"kind":"xlsx","file":"et-b01.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`
}

// Read reads lines as the file ann.jsonl of records of tp.
func Read(t testing.TB, tp *templates.Template, lines ...string) ([]*records.Annotation, records.Origins, error) {
	t.Helper()
	return records.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), "ann.jsonl", func(records.TemplateID) (*templates.Template, error) { return tp, nil })
}

package templates

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIDDisplay: rows.id_display is real (the default) or opaque, and an
// opaque template shows the real id in no context column.
func TestIDDisplay(t *testing.T) {
	t.Parallel()
	const src = `name: op
version: 1
title: Opaque
instructions: Judge each text.
input:
  id: ID
rows:
  per: ROWS
  path: spans
  id_display: DISPLAY
context:
  - name: text
    path: text
  - name: shown
    path: PATH
questions:
  - name: ok
    type: bool
`
	tests := []struct {
		name                    string
		id, rows, display, path string
		wantDisplay             string
		wantErr                 string // on the line of the column shown, or of rows
		wantLine                int
	}{
		{name: "real by default", id: `"{id}"`, rows: "element", display: `""`, path: "id", wantDisplay: IDReal},
		{name: "real shows anything", id: `"{id}"`, rows: "element", display: "real", path: "id", wantDisplay: IDReal},
		{name: "opaque", id: `"{id}"`, rows: "element", display: "opaque", path: "title", wantDisplay: IDOpaque},
		{name: "opaque, an element's field of the same name", id: `"{id}"`, rows: "element", display: "opaque", path: "'@.id'", wantDisplay: IDOpaque},
		{name: "opaque, an id from the key of a JSON object", id: `"{$key}"`, rows: "element", display: "opaque", path: "id", wantDisplay: IDOpaque},
		{name: "neither real nor opaque", id: `"{id}"`, rows: "element", display: "hidden", path: "title",
			wantErr: `rows: id_display "hidden" is not one of real, opaque`, wantLine: 8},
		{name: "opaque shows the id field", id: `"{id}"`, rows: "element", display: "opaque", path: "id",
			wantErr: `context "shown" would show field "id" of the id "{id}", which id_display: opaque hides; leave it out`, wantLine: 14},
		{name: "opaque shows a field the id is made of", id: `"{model}-{n}"`, rows: "element", display: "opaque", path: "n",
			wantErr: `context "shown" would show field "n" of the id "{model}-{n}", which id_display: opaque hides; leave it out`, wantLine: 14},
		{name: "opaque shows the id inside its object", id: `"{meta.id}"`, rows: "element", display: "opaque", path: "meta",
			wantErr: `context "shown" would show field "meta.id" of the id "{meta.id}", which id_display: opaque hides; leave it out`, wantLine: 14},
		{name: "opaque shows $id", id: `"{id}"`, rows: "element", display: "opaque", path: "$id",
			wantErr: `context "shown" would show the id, which id_display: opaque hides; leave it out`, wantLine: 14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := strings.NewReplacer("ID", tt.id, "ROWS", tt.rows, "DISPLAY", tt.display, "PATH", tt.path).Replace(src)
			tp, err := Load("t.yaml", []byte(s))
			var want []*Error
			if tt.wantErr != "" {
				want = []*Error{{File: "t.yaml", Line: tt.wantLine, Msg: tt.wantErr}}
			}
			if d := cmp.Diff(want, errorList(t, err)); d != "" {
				t.Fatalf("errors (-want +got):\n%s", d)
			}
			if err != nil {
				return
			}
			if tp.Rows.IDDisplay != tt.wantDisplay || tp.OpaqueIDs() != (tt.wantDisplay == IDOpaque) {
				t.Errorf("id_display %q, OpaqueIDs %v; want %q", tp.Rows.IDDisplay, tp.OpaqueIDs(), tt.wantDisplay)
			}
		})
	}
}

// TestLegalGapsOpaque: the built-in legal-gaps hides its ids, which name
// the models; the other built-ins show theirs.
func TestLegalGapsOpaque(t *testing.T) {
	t.Parallel()
	for _, name := range BuiltinNames() {
		tp, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tp.OpaqueIDs(), name == "legal-gaps"; got != want {
			t.Errorf("%s: opaque IDs %v, want %v", name, got, want)
		}
	}
}

package backend_test

import (
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
)

func TestCellName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		col, row int
		want     string
	}{
		{0, 1, "A1"},
		{25, 2, "Z2"},
		{26, 3, "AA3"},
		{51, 4, "AZ4"},
		{52, 5, "BA5"},
		{701, 6, "ZZ6"},
		{702, 7, "AAA7"},
		{16383, 1048576, "XFD1048576"}, // Excel's last cell
	}
	for _, tt := range tests {
		if got := backend.CellName(tt.col, tt.row); got != tt.want {
			t.Errorf("CellName(%d, %d) = %q, want %q", tt.col, tt.row, got, tt.want)
		}
	}
}

func TestInline(t *testing.T) {
	t.Parallel()
	// Values of n characters each, joined by commas: 255 characters in all
	// is the most that goes inline.
	fits := strings.Split(strings.Repeat("x", 127)+","+strings.Repeat("y", 127), ",")
	tests := []struct {
		name string
		v    backend.Validation
		want bool
	}{
		{"short", backend.Validation{Values: []string{"a", "b"}, Source: "Lists!$A$2:$A$3"}, true},
		{"at the limit", backend.Validation{Values: fits, Source: "Lists!$A$2:$A$3"}, true},
		{"over the limit", backend.Validation{Values: append(fits, "z"), Source: "Lists!$A$2:$A$4"}, false},
		{"over the limit, no range", backend.Validation{Values: append(fits, "z")}, true},
		{"a comma", backend.Validation{Values: []string{"a, b"}, Source: "Lists!$A$2:$A$2"}, false},
		{"a quote", backend.Validation{Values: []string{`say "x"`}, Source: "Lists!$A$2:$A$2"}, false},
	}
	for _, tt := range tests {
		if got := tt.v.Inline(); got != tt.want {
			t.Errorf("%s: Inline() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestLimitsOf(t *testing.T) {
	t.Parallel()
	for _, want := range []backend.Limits{backend.XLSX, backend.GSheets} {
		got, ok := backend.LimitsOf(want.Kind)
		if !ok || got != want {
			t.Errorf("LimitsOf(%q) = %+v, %v; want %+v, true", want.Kind, got, ok, want)
		}
		if got.CellChars == 0 || got.InlineList != backend.MaxInlineList {
			t.Errorf("%s: cell limit %d, inline list %d", want.Kind, got.CellChars, got.InlineList)
		}
	}
	if _, ok := backend.LimitsOf("csv"); ok {
		t.Error(`LimitsOf("csv") is known`)
	}
}

func TestLinkRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sheet string
		want  string
	}{
		{"Read", "Read!C12"},
		{"Annotate", "Annotate!C12"},
		{"_annosheet", "_annosheet!C12"},
		{"My sheet", "'My sheet'!C12"},
		{"O'Brien", "'O''Brien'!C12"},
		{"2024", "'2024'!C12"},
		{"AB12", "'AB12'!C12"},
		{"R1C1", "'R1C1'!C12"},
		{"R", "'R'!C12"},
		{"Résumé", "'Résumé'!C12"},
		{"", "''!C12"},
	}
	for _, tt := range tests {
		l := &backend.Link{Sheet: tt.sheet, Row: 12, Col: 2}
		if got := l.Ref(); got != tt.want {
			t.Errorf("Link{Sheet: %q}.Ref() = %q, want %q", tt.sheet, got, tt.want)
		}
	}
}

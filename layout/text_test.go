package layout

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
)

// textUTF16Len counts UTF-16 code units the way a spreadsheet does, with
// the standard library's encoder rather than the package's own helper.
func textUTF16Len(s string) int {
	return len(utf16.Encode([]rune(s)))
}

// textMarker is the truncation marker as a user reads it.
func textMarker(shown, total string) string {
	return " [… cut by annosheet: " + shown + " of " + total + " characters shown; the full text is in the input file]"
}

func TestCleanCharacters(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		rep  Repair
	}{
		{"empty", "", "", Repair{}},
		{"plain ASCII", "The cat sat on the mat.", "The cat sat on the mat.", Repair{}},
		{"non-ASCII letters, symbols and emoji", "héllo wörld — 日本語 ‘quotes’ 🙂 \u00a0nbsp", "héllo wörld — 日本語 ‘quotes’ 🙂 \u00a0nbsp", Repair{}},
		{"tab, newline and carriage return are kept", "a\tb\nc\r\nd", "a\tb\nc\r\nd", Repair{}},
		{"a U+FFFD already in the text is no repair", "a\ufffdb", "a\ufffdb", Repair{}},
		{"U+2400 pictures already in the text are no repair", "␀␇", "␀␇", Repair{}},
		{"NUL", "a\x00b", "a\u2400b", Repair{Controls: 1}},
		{"BEL", "\x07", "\u2407", Repair{Controls: 1}},
		{"ESC", "x\x1b[0m", "x\u241b[0m", Repair{Controls: 1}},
		{"unit separator", "\x1f", "\u241f", Repair{Controls: 1}},
		{"vertical tab and form feed", "a\vb\fc", "a\u240bb\u240cc", Repair{Controls: 2}},
		{"DEL", "a\x7fb", "a\u2421b", Repair{Controls: 1}},
		// C1 controls and the non-characters have no picture of their own
		// in the U+2400 block; they are shown as U+FFFD and counted as
		// controls, not as invalid bytes.
		{"C1 control NEL", "a\u0085b", "a\ufffdb", Repair{Controls: 1}},
		{"C1 controls at both ends of the block", "\u0080\u009f", "\ufffd\ufffd", Repair{Controls: 2}},
		{"U+FFFE", "a\ufffeb", "a\ufffdb", Repair{Controls: 1}},
		{"U+FFFF", "\uffff", "\ufffd", Repair{Controls: 1}},
		{"controls among non-ASCII text", "é\x00日\x1b🙂", "é\u2400日\u241b🙂", Repair{Controls: 2}},
		{"every C0 control but tab, LF and CR", "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f",
			"␀␁␂␃␄␅␆␇␈␋␌␎␏␐␑␒␓␔␕␖␗␘␙␚␛␜␝␞␟", Repair{Controls: 29}},
		{"invalid byte", "a\xffb", "a\ufffdb", Repair{Invalid: 1}},
		{"lone continuation byte", "\x80", "\ufffd", Repair{Invalid: 1}},
		{"cut-off two-byte sequence at the end", "caf\xc3", "caf\ufffd", Repair{Invalid: 1}},
		// Each byte of a bad sequence is one replacement, as Go's decoder
		// (and encoding/json) reads it.
		{"cut-off four-byte sequence", "x\xf0\x9f\x99y", "x\ufffd\ufffd\ufffdy", Repair{Invalid: 3}},
		{"UTF-8 encoded surrogate", "\xed\xa0\x80", "\ufffd\ufffd\ufffd", Repair{Invalid: 3}},
		{"overlong encoding of /", "\xc0\xaf", "\ufffd\ufffd", Repair{Invalid: 2}},
		{"Latin-1 text", "caf\xe9 na\xefve", "caf\ufffd na\ufffdve", Repair{Invalid: 2}},
		{"invalid bytes and controls together", "\x00\xff\x07\xfe", "\u2400\ufffd\u2407\ufffd", Repair{Invalid: 2, Controls: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, limit := range []int{0, backend.XLSXCellLimit, backend.SheetsCellLimit} {
				got, rep := Clean(tc.in, limit)
				if got != tc.want {
					t.Errorf("Clean(%q, %d) = %q (%+q), want %q (%+q)", tc.in, limit, got, got, tc.want, tc.want)
				}
				if d := cmp.Diff(tc.rep, rep); d != "" {
					t.Errorf("Clean(%q, %d) Repair (-want +got):\n%s", tc.in, limit, d)
				}
				if rep.Changed() != (tc.rep != Repair{}) {
					t.Errorf("Changed() = %v for %+v", rep.Changed(), rep)
				}
			}
		})
	}
}

func TestCleanTruncate(t *testing.T) {
	const emoji = "🙂" // U+1F642: 4 bytes, 2 UTF-16 units
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
		rep   Repair
	}{
		{
			name:  "40,000 ASCII characters in an XLSX cell",
			in:    strings.Repeat("a", 40000),
			limit: backend.XLSXCellLimit,
			want:  strings.Repeat("a", 32673) + textMarker("32673", "40000"),
			rep:   Repair{Truncated: 40000, Shown: 32673},
		},
		{
			name:  "length counted in UTF-16 units, not bytes",
			in:    strings.Repeat("é", 40000),
			limit: backend.XLSXCellLimit,
			want:  strings.Repeat("é", 32673) + textMarker("32673", "40000"),
			rep:   Repair{Truncated: 40000, Shown: 32673},
		},
		{
			name:  "emoji count as two units; the one across the cut is left out whole",
			in:    strings.Repeat(emoji, 20000),
			limit: backend.XLSXCellLimit,
			want:  strings.Repeat(emoji, 16336) + textMarker("32672", "40000"),
			rep:   Repair{Truncated: 40000, Shown: 32672},
		},
		{
			name:  "emoji after two ASCII letters, the one across the cut left out",
			in:    "ab" + strings.Repeat(emoji, 20000),
			limit: backend.XLSXCellLimit,
			want:  "ab" + strings.Repeat(emoji, 16335) + textMarker("32672", "40002"),
			rep:   Repair{Truncated: 40002, Shown: 32672},
		},
		{
			name:  "emoji after one ASCII letter, the cut between two emoji",
			in:    "a" + strings.Repeat(emoji, 20000),
			limit: backend.XLSXCellLimit,
			want:  "a" + strings.Repeat(emoji, 16336) + textMarker("32673", "40001"),
			rep:   Repair{Truncated: 40001, Shown: 32673},
		},
		{
			name:  "exactly at the XLSX limit",
			in:    strings.Repeat("a", backend.XLSXCellLimit),
			limit: backend.XLSXCellLimit,
			want:  strings.Repeat("a", backend.XLSXCellLimit),
		},
		{
			name:  "exactly at the limit with emoji",
			in:    strings.Repeat(emoji, 16383) + "a",
			limit: backend.XLSXCellLimit,
			want:  strings.Repeat(emoji, 16383) + "a",
		},
		{
			name:  "one unit over the limit",
			in:    strings.Repeat("a", backend.XLSXCellLimit+1),
			limit: backend.XLSXCellLimit,
			want:  strings.Repeat("a", 32673) + textMarker("32673", "32768"),
			rep:   Repair{Truncated: 32768, Shown: 32673},
		},
		{
			name:  "one emoji over the limit by one unit",
			in:    strings.Repeat(emoji, 16384),
			limit: backend.XLSXCellLimit,
			want:  strings.Repeat(emoji, 16336) + textMarker("32672", "32768"),
			rep:   Repair{Truncated: 32768, Shown: 32672},
		},
		{
			name:  "Google Sheets limit",
			in:    strings.Repeat("b", 60000),
			limit: backend.SheetsCellLimit,
			want:  strings.Repeat("b", 49906) + textMarker("49906", "60000"),
			rep:   Repair{Truncated: 60000, Shown: 49906},
		},
		{
			name:  "no limit",
			in:    strings.Repeat("a", 40000),
			limit: 0,
			want:  strings.Repeat("a", 40000),
		},
		{
			name:  "controls replaced, then cut",
			in:    "\x00" + strings.Repeat("a", 39999),
			limit: backend.XLSXCellLimit,
			want:  "\u2400" + strings.Repeat("a", 32672) + textMarker("32673", "40000"),
			rep:   Repair{Controls: 1, Truncated: 40000, Shown: 32673},
		},
		{
			name:  "invalid bytes count one unit each after replacement",
			in:    strings.Repeat("\xff", 40000),
			limit: backend.XLSXCellLimit,
			want:  strings.Repeat("\ufffd", 32673) + textMarker("32673", "40000"),
			rep:   Repair{Invalid: 40000, Truncated: 40000, Shown: 32673},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rep := Clean(tc.in, tc.limit)
			if got != tc.want {
				t.Errorf("Clean: got %d units ending %q, want %d units ending %q",
					textUTF16Len(got), got[max(0, len(got)-120):], textUTF16Len(tc.want), tc.want[max(0, len(tc.want)-120):])
			}
			if d := cmp.Diff(tc.rep, rep); d != "" {
				t.Errorf("Repair (-want +got):\n%s", d)
			}
			// The properties that the full values above pin down.
			if !utf8.ValidString(got) {
				t.Errorf("output is not valid UTF-8")
			}
			if tc.limit > 0 && textUTF16Len(got) > tc.limit {
				t.Errorf("output has %d UTF-16 units, more than the limit %d", textUTF16Len(got), tc.limit)
			}
			if rep.Truncated > 0 {
				cleaned, _ := Clean(tc.in, 0)
				prefix, ok := strings.CutSuffix(got, textMarker(strconv.Itoa(rep.Shown), strconv.Itoa(rep.Truncated)))
				if !ok {
					t.Errorf("output does not end with the marker for %d of %d", rep.Shown, rep.Truncated)
				}
				if !strings.HasPrefix(cleaned, prefix) || textUTF16Len(prefix) != rep.Shown {
					t.Errorf("the shown text (%d units) is not a prefix of the cleaned text with Shown = %d units", textUTF16Len(prefix), rep.Shown)
				}
				if textUTF16Len(cleaned) != rep.Truncated {
					t.Errorf("Truncated = %d, the cleaned text has %d units", rep.Truncated, textUTF16Len(cleaned))
				}
			}
		})
	}
}

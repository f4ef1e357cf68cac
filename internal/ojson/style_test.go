package ojson

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// detectStyleWhole is DetectStyle as it was written for a file held whole
// in memory: the reference the detector that streams must agree with.
func detectStyleWhole(data []byte) Style {
	var s Style
	s.Newline = bytes.HasSuffix(data, []byte("\n"))
	if i := bytes.IndexByte(data, '\n'); i >= 0 && i+1 < len(data) {
		rest := data[i+1:]
		n := 0
		for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
			n++
		}
		s.Indent = string(rest[:n])
	}
	if s.Indent == "" {
		if i := bytes.Index(data, []byte(`":`)); i >= 0 && i+2 < len(data) {
			s.Spaced = data[i+2] == ' '
		}
	}
	ascii := true
	for _, b := range data {
		if b >= 0x80 {
			ascii = false
			break
		}
	}
	s.ASCII = ascii && bytes.Contains(data, []byte(`\u`))
	return s
}

// FuzzDetectStyle: the style read byte by byte, or whole, is the one read
// from the whole file, but for an indentation cut at maxIndent.
func FuzzDetectStyle(f *testing.F) {
	for _, s := range []string{
		"{\"id\": \"a\", \"n\": [1, 2]}\n{\"id\": \"b\"}\n",
		"{\"id\":\"a\"}\n",
		"[\n  {\"a\": \"\\u00e9\"}\n]",
		"[\n\t{\"a\":\"é\"}\n]\n",
		"\"\":",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := detectStyleWhole(data)
		if len(want.Indent) > maxIndent {
			want.Indent = want.Indent[:maxIndent]
		}
		if got := DetectStyle(data); got != want {
			t.Errorf("DetectStyle(%q) = %+v, want %+v", data, got, want)
		}
		got, err := DetectStyleReader(iotest.OneByteReader(bytes.NewReader(data)))
		if err != nil || got != want {
			t.Errorf("DetectStyleReader(%q) = %+v, %v; want %+v", data, got, err, want)
		}
	})
}

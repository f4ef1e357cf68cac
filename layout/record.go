package layout

import "encoding/json"

// Record is one input record as read, before the template is applied.
type Record struct {
	Data  any             // the decoded JSON value; numbers are json.Number
	Raw   json.RawMessage // the record as written
	Key   string          // its key, when the input is a JSON object keyed by id
	Index int             // 0-based position across all inputs
	File  string
	Line  int // the line the record starts on
	// InvalidUTF8 is set when the raw record had bytes that are not UTF-8;
	// the decoder replaced them with U+FFFD.
	InvalidUTF8 bool
}

// Source is a set of input records that can be read more than once, so
// that generating never has to hold every record in memory. Package input
// reads files into a Source; layout only consumes one. A Source that is
// also a Scratcher gives Build the temporary storage it keeps rows in.
type Source interface {
	// Each calls fn for every record in input order. An error from fn stops
	// the iteration and is returned.
	Each(fn func(*Record) error) error
	// Files lists the files the records come from, for the manifest.
	Files() []string
}

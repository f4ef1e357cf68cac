package records

import (
	"bufio"
	"encoding/json"
	"io"
)

// Write writes records as JSON Lines, as pull writes them and Read reads
// them: one record a line, text as it is (no HTML escaping of <, > and
// &, which a reader of the file would see).
func Write(w io.Writer, recs []*Annotation) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

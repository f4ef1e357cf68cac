package export_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/templates"
)

// FuzzReadRecords: any file given as pulled records is read into records
// that encode again, or refused with an error that names it.
func FuzzReadRecords(f *testing.F) {
	tp, err := templates.Load("et.yaml", []byte(tmplYAML))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(line("u1", "a", "complete", `{"pick":"y","tags":["1","3"],"score":4,"quote":{"field":"text","start":0,"end":3,"text":"the"}}`) + "\n"))
	f.Add([]byte(line("u1", "a", "empty", `{}`) + "\n" + line("u1", "a", "empty", `{}`)))
	f.Add([]byte(line("u1", "", "missing", `{}`) + "\r\n\n   \n"))
	f.Add([]byte(`{"schema":"annosheet.annotation/1"`))
	f.Add([]byte("\xef\xbb\xbf[1,2]\n{}{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, origins, err := export.ReadRecords(bytes.NewReader(b), "fuzz.jsonl", func(mapping.TemplateID) (*templates.Template, error) { return tp, nil })
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.jsonl") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		for _, r := range recs {
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("a record read does not encode: %v", err)
			}
			if !strings.HasPrefix(origins[r], "fuzz.jsonl:") {
				t.Fatalf("origin %q", origins[r])
			}
		}
	})
}

// TestReadRecordsLineBudget: a file with a line longer than a record may
// be is refused at that line, without holding the line.
func TestReadRecordsLineBudget(t *testing.T) {
	t.Parallel()
	tp, err := templates.Load("et.yaml", []byte(tmplYAML))
	if err != nil {
		t.Fatal(err)
	}
	long := io.MultiReader(strings.NewReader(line("u1", "a", "empty", `{}`)+"\n"+`{"schema":"`),
		io.LimitReader(repeat('a'), export.MaxRecordLine+1), strings.NewReader("\"}\n"))
	_, _, err = export.ReadRecords(long, "big.jsonl", func(mapping.TemplateID) (*templates.Template, error) { return tp, nil })
	if !errors.Is(err, boundedread.ErrTooLarge) || !errors.Is(err, export.ErrExport) || !strings.HasPrefix(err.Error(), "big.jsonl:2: ") {
		t.Errorf("ReadRecords: %v", err)
	}
}

// repeat is an endless stream of one byte.
type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

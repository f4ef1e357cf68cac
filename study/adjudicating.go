package study

import (
	"io"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ResolveTo makes the gold set of records without workbooks (Resolve)
// and writes its records to the JSON Lines file path, replacing a file
// there only with force.
func ResolveTo(path string, force bool, t *templates.Template, recs []*records.Annotation, man *Manifest, resolve string, opt adjudicate.Options) (*GoldSet, *adjudicate.Found, error) {
	g, found, err := Resolve(t, recs, man, resolve, opt)
	if err != nil {
		return nil, nil, err
	}
	if err := atomicfile.Write(path, force, 0o644, func(w io.Writer) error { return records.Write(w, g.Records) }); err != nil {
		return nil, nil, err
	}
	return g, found, nil
}

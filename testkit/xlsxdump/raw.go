package xlsxdump

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"path"
)

// rawBook is what the dump reads from the package itself because excelize
// has no getter for it: sheet states (veryHidden) and whether a sheet is
// protected at all.
type rawBook struct {
	states    map[string]string
	protected map[string]bool
}

func readRaw(name string) (*rawBook, error) {
	z, err := zip.OpenReader(name)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	part := func(p string) ([]byte, error) {
		f, err := z.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	var wb struct {
		Sheets []struct {
			Name  string `xml:"name,attr"`
			State string `xml:"state,attr"`
			RID   string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	var rels struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	b, err := part("xl/workbook.xml")
	if err != nil {
		return nil, err
	}
	if err := xml.Unmarshal(b, &wb); err != nil {
		return nil, err
	}
	if b, err = part("xl/_rels/workbook.xml.rels"); err != nil {
		return nil, err
	}
	if err := xml.Unmarshal(b, &rels); err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, r := range rels.Rels {
		t := r.Target
		if path.IsAbs(t) {
			t = t[1:]
		} else {
			t = path.Join("xl", t)
		}
		targets[r.ID] = t
	}
	rb := &rawBook{states: map[string]string{}, protected: map[string]bool{}}
	for _, s := range wb.Sheets {
		rb.states[s.Name] = s.State
		if b, err := part(targets[s.RID]); err == nil {
			rb.protected[s.Name] = bytes.Contains(b, []byte("<sheetProtection"))
		}
	}
	return rb, nil
}

package xlsx

import (
	"fmt"
	"strconv"
)

// styles is what the reader needs of styles.xml: for each cell format
// (a cell's s attribute), whether it shows a number as a date, and how.
type styles struct {
	dates  []*dateFormat // by cell format
	isDate []bool
}

// date is the date format of cell format i, if it has one.
func (st *styles) date(i int) (*dateFormat, bool) {
	if st == nil || i < 0 || i >= len(st.isDate) || !st.isDate[i] {
		return nil, false
	}
	return st.dates[i], true
}

// readStyles reads the number formats (<numFmts>) and the cell formats
// (<cellXfs>) of styles.xml.
func readStyles(s *xmlScanner, lim readLimits) (*styles, error) {
	if err := rootIs(s, "styleSheet"); err != nil {
		return nil, err
	}
	custom := map[int]string{}
	var xfs []int // each cell format's number format
	err := s.children(func(local []byte) error {
		switch string(local) {
		case "numFmts":
			return s.children(func(local []byte) error {
				if string(local) != "numFmt" {
					return nil
				}
				id, ok := intAttr(s, "numFmtId")
				code, _ := s.attrValue("formatCode")
				if !ok {
					return &readError{kind: ErrDamaged, msg: "a number format without a valid numFmtId"}
				}
				switch {
				case len(custom) == maxNumFmts:
					return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("more than %d number formats", maxNumFmts)}
				case len(code) > maxFormatCode:
					return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("number format %d is longer than %d bytes", id, maxFormatCode)}
				}
				custom[id] = string(code)
				return nil
			})
		case "cellXfs":
			return s.children(func(local []byte) error {
				if string(local) != "xf" {
					return nil
				}
				if len(xfs) == lim.listed {
					return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("more than %d cell formats (MaxCellFormats)", lim.listed)}
				}
				id, _ := intAttr(s, "numFmtId") // none: General
				xfs = append(xfs, id)
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	st := &styles{dates: make([]*dateFormat, len(xfs)), isDate: make([]bool, len(xfs))}
	compiled := map[int]*dateFormat{}
	isDate := map[int]bool{}
	for i, id := range xfs {
		f, seen := compiled[id]
		if !seen {
			var ok bool
			switch code, isCustom := custom[id]; {
			case isCustom:
				f, ok = compileDateFormat(code)
			case builtinDateFormats[id] != "":
				f, ok = compileDateFormat(builtinDateFormats[id])
			case isEastAsianDate(id):
				f, ok = nil, true
			}
			compiled[id], isDate[id] = f, ok
		}
		st.dates[i], st.isDate[i] = f, isDate[id]
	}
	return st, nil
}

// intAttr is the current tag's attribute local as a non-negative int.
func intAttr(s *xmlScanner, local string) (int, bool) {
	v, ok := s.attrValue(local)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil && n >= 0
}

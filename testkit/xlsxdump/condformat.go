package xlsxdump

import (
	"sort"
)

// conditionalFormats dumps a sheet's conditional formats by range: the
// formula and the fill of each.
func (d *dumper) conditionalFormats(sheet string) error {
	cfs, err := d.f.GetConditionalFormats(sheet)
	if err != nil {
		return err
	}
	ranges := make([]string, 0, len(cfs))
	for r := range cfs {
		ranges = append(ranges, r)
	}
	sort.Strings(ranges)
	for _, r := range ranges {
		for _, o := range cfs[r] {
			fill := "?"
			if o.Format != nil {
				if st, err := d.f.GetConditionalStyle(*o.Format); err == nil && st != nil && len(st.Fill.Color) > 0 {
					fill = st.Fill.Color[0]
				}
			}
			d.printf("  conditional %s type=%s fill=%s formula=%q\n", r, o.Type, fill, o.Criteria)
		}
	}
	return nil
}

package export

import (
	"fmt"

	"github.com/annosheet/annosheet/mapping"
)

// RestoreIDs gives records pulled without the study's manifest, which keep
// the opaque IDs their workbook showed ("opaque_ids": true), their real
// unit and instance IDs from the study's key (its manifest's
// opaque_ids), in place, so that every later step (copies compared,
// input records found, candidates unshuffled) sees one ID per unit.
// origins name the records in errors, as in Options.
func RestoreIDs(recs []*mapping.Annotation, key map[string]string, origins Origins) error {
	for _, r := range recs {
		if !r.OpaqueIDs {
			continue
		}
		if err := mapping.RestoreIDs(r, key); err != nil {
			return fmt.Errorf("%s: %w: %w", origins.name(r), ErrExport, err)
		}
	}
	return nil
}

// stillOpaque refuses records that keep their workbook's opaque IDs: the
// native file needs the real ones, which only the study's manifest holds.
func stillOpaque(recs []*mapping.Annotation, where map[*mapping.Annotation]string) error {
	for _, r := range recs {
		if r.OpaqueIDs {
			return fmt.Errorf("%s: %w: unit %s has the opaque ID its workbook shows (%w); export with the study's manifest, which holds the real IDs", where[r], ErrExport, r.Unit, mapping.ErrOpaqueIDs)
		}
	}
	return nil
}

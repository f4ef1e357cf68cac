package study

import (
	"context"
	"maps"
	"slices"

	"github.com/annosheet/annosheet/records"
)

// Tally counts a group's units by status.
type Tally struct {
	// Study is the batch's study, given when the sources hold several.
	Study     string `json:"study,omitempty"`
	Batch     string `json:"batch,omitempty"`
	Annotator string `json:"annotator"`
	Workbook  string `json:"workbook,omitempty"`
	Units     int    `json:"units"`
	Complete  int    `json:"complete"`
	Partial   int    `json:"partial"`
	Empty     int    `json:"empty"`
	Missing   int    `json:"missing"`
	// Unreadable counts the units of workbooks that are there but could
	// not be read.
	Unreadable int `json:"unreadable"`
	// Errors and Warnings count the problems pull reports about these
	// units and their workbooks.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

func (t *Tally) add(r *records.Annotation) {
	t.Units++
	switch r.Status {
	case records.StatusComplete:
		t.Complete++
	case records.StatusPartial:
		t.Partial++
	case records.StatusEmpty:
		t.Empty++
	case records.StatusMissing:
		t.Missing++
	case records.StatusUnreadable:
		t.Unreadable++
	}
}

func (t *Tally) problem(p *records.Problem) {
	if p.Severity == records.Error {
		t.Errors++
	} else {
		t.Warnings++
	}
}

// Done is the share of units complete.
func (t *Tally) Done() float64 {
	if t.Units == 0 {
		return 0
	}
	return float64(t.Complete) / float64(t.Units)
}

// Bar splits a bar of width cells into the cells of complete units and of
// partial ones, rounding each boundary to the nearest cell.
func (t *Tally) Bar(width int) (complete, partial int) {
	if t.Units == 0 {
		return 0, 0
	}
	cell := func(n int) int { return (n*width*2 + t.Units) / (t.Units * 2) }
	complete = cell(t.Complete)
	return complete, cell(t.Complete+t.Partial) - complete
}

// StatusSchema tags the status report.
const StatusSchema = "annosheet.status/1"

// Status is how far along a study is, and its agreement so far.
type Status struct {
	Schema     string   `json:"schema"`
	Batches    []*Tally `json:"batches"`
	Annotators []*Tally `json:"annotators"`
	Total      *Tally   `json:"total"`
	// Conflicts are the units copies disagree on.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Agreement is the agreement so far, one entry per study (and
	// template) whose complete units overlap: absent when no unit has
	// been completed by two or more annotators.
	Agreement []StatusAgreement `json:"agreement,omitempty"`
}

// CountStatus groups a pull's records per batch and annotator (in the
// order they come), and per annotator. In a shared workbook, units nobody
// has claimed yet count under the annotator "". When two or more
// annotators have completed a unit, it adds the agreement so far, from
// the same records and the template their workbooks carry. It stops with
// ctx's error when ctx is done.
func CountStatus(ctx context.Context, res *Result) (*Status, error) {
	rep := CountProgress(res)
	var err error
	if rep.Agreement, err = agreementSoFar(ctx, res); err != nil {
		return nil, err
	}
	return rep, nil
}

// CountProgress is CountStatus without the agreement so far: the counts
// alone, for a caller that computes the agreement its own way.
func CountProgress(res *Result) *Status {
	// Batches of several studies may share IDs: a batch is its study's.
	files := map[batchKey]string{}
	studies := map[string]bool{}
	for _, b := range res.Workbooks {
		k := batchKey{b.Study, b.Batch}
		if _, ok := files[k]; !ok {
			files[k] = b.File
		}
	}
	// A batch not read is named by the file the problems name (the path
	// given, or the manifest's), in a stable order.
	for _, path := range slices.Sorted(maps.Keys(res.batchOf)) {
		if k := res.batchOf[path]; files[k] == "" {
			files[k] = path
		}
	}
	for _, r := range res.Records {
		k := batchKey{res.studyOf[r], r.Batch}
		studies[k.study] = true
		if _, ok := files[k]; !ok && !records.InHand(r.Status) {
			files[k] = r.Source.File
		}
	}
	type tallyKey struct{ study, batch, annotator string }
	rep := &Status{Schema: StatusSchema, Total: &Tally{Annotator: "all"}, Conflicts: res.Conflicts}
	byBatch := map[tallyKey]*Tally{}
	studyOf := map[*Tally]string{}
	byAnn := map[string]*Tally{}
	for _, r := range res.Records {
		study := res.studyOf[r]
		key := tallyKey{study, r.Batch, foldID(r.Annotator)}
		bt := byBatch[key]
		if bt == nil {
			bt = &Tally{Batch: r.Batch, Annotator: r.Annotator, Workbook: files[batchKey{study, r.Batch}]}
			studyOf[bt] = study
			if len(studies) > 1 {
				bt.Study = study
			}
			byBatch[key] = bt
			rep.Batches = append(rep.Batches, bt)
		}
		bt.add(r)
		at := byAnn[foldID(r.Annotator)]
		if at == nil {
			at = &Tally{Annotator: r.Annotator}
			byAnn[foldID(r.Annotator)] = at
			rep.Annotators = append(rep.Annotators, at)
		}
		at.add(r)
		rep.Total.add(r)
	}
	// Each problem counts for the batch (and annotator) it is about; one
	// about no batch (a file not read) counts for the study only.
	annotatorOf := res.annotatorOf()
	for _, p := range res.Problems {
		rep.Total.problem(p)
		bk, ok := res.batchOf[p.File]
		if !ok {
			continue
		}
		var t *Tally
		if p.Record != "" {
			t = byBatch[tallyKey{bk.study, bk.batch, foldID(annotatorOf[unitKey{bk.study, bk.batch, p.Record}])}]
		}
		if t == nil {
			for _, bt := range rep.Batches {
				if bt.Batch == bk.batch && studyOf[bt] == bk.study {
					t = bt
					break
				}
			}
		}
		if t != nil {
			t.problem(p)
			if at := byAnn[foldID(t.Annotator)]; at != nil {
				at.problem(p)
			}
		}
	}
	return rep
}

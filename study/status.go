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
	// Prefill is what annotators did with the suggestions their units
	// started from (generate --prefill): one entry per annotator and
	// source of suggestions, in the order of Annotators. Absent when no
	// unit answered was prefilled.
	Prefill []*PrefillTally `json:"prefill,omitempty"`
	// Controls is each annotator's accuracy on the control units of the
	// study (generate --controls), by annotator as Annotators names
	// them: see ControlAccuracy. Absent when no record of a control unit
	// was scored.
	Controls map[string]*ControlTally `json:"controls,omitempty"`
}

// PrefillTally counts what one annotator did with the suggestions of one
// source (PrefillTrace.From) in the prefilled units they answered
// (complete or partial): per question, how many suggested answers were
// kept, changed or cleared; for a block template, the spans summed. An
// annotator whose units started from several sources has an entry per
// source, so that each source's suggestions are judged apart.
type PrefillTally struct {
	// Study is the units' study, given when the sources hold several:
	// their templates may share question names.
	Study     string `json:"study,omitempty"`
	Annotator string `json:"annotator"`
	From      string `json:"from"`
	// Units counts the prefilled units answered.
	Units int `json:"units"`
	// Questions counts, by question name, what became of the answers
	// suggested: a question counts only in the units it had a suggestion.
	Questions map[string]*KeptCounts `json:"questions"`
	// Spans sums the traces of a block's spans; nil when no unit had one.
	Spans *records.SpanTrace `json:"spans,omitempty"`
}

// KeptCounts counts the suggested answers to a question that annotators
// kept, changed, or cleared (left with no answer).
type KeptCounts struct {
	Kept    int `json:"kept"`
	Changed int `json:"changed"`
	Cleared int `json:"cleared"`
}

// Share is the share of the suggested answers kept; ok is false when
// there were none.
func (c *KeptCounts) Share() (share float64, ok bool) {
	return keptShare(c.Kept, c.Kept+c.Changed+c.Cleared)
}

// SpansKept is the share of a block's suggested spans kept: of those
// kept, changed and removed. The spans annotators added were not
// suggested, so they do not count. ok is false when no span was
// suggested.
func SpansKept(s *records.SpanTrace) (share float64, ok bool) {
	return keptShare(s.Kept, s.Kept+s.Changed+s.Removed)
}

func keptShare(kept, of int) (float64, bool) {
	if of == 0 {
		return 0, false
	}
	return float64(kept) / float64(of), true
}

// add counts the trace of one record.
func (t *PrefillTally) add(p *records.PrefillTrace) {
	t.Units++
	for q, st := range p.Questions {
		c := t.Questions[q]
		if c == nil {
			c = &KeptCounts{}
			t.Questions[q] = c
		}
		switch st {
		case records.PrefillKept:
			c.Kept++
		case records.PrefillChanged:
			c.Changed++
		case records.PrefillCleared:
			c.Cleared++
		}
	}
	if s := p.Spans; s != nil {
		if t.Spans == nil {
			t.Spans = &records.SpanTrace{}
		}
		t.Spans.Kept += s.Kept
		t.Spans.Changed += s.Changed
		t.Spans.Removed += s.Removed
		t.Spans.Added += s.Added
	}
}

// countPrefill tallies the prefill traces of the records answered (of
// annotators, not the unclaimed units of a shared workbook) per
// annotator, study and source: annotators in the order of annotators
// (status's), each one's studies and sources in the order the records
// come. Several studies are told apart only when there are several.
func countPrefill(res *Result, annotators []*Tally, studies bool) []*PrefillTally {
	type key struct{ annotator, study, from string }
	at := map[key]*PrefillTally{}
	byAnn := map[string][]*PrefillTally{}
	for _, r := range res.Records {
		if r.Prefill == nil || r.Annotator == "" || (r.Status != records.StatusComplete && r.Status != records.StatusPartial) {
			continue
		}
		k := key{foldID(r.Annotator), res.studyOf[r], r.Prefill.From}
		if !studies {
			k.study = ""
		}
		t := at[k]
		if t == nil {
			t = &PrefillTally{Study: k.study, Annotator: r.Annotator, From: r.Prefill.From, Questions: map[string]*KeptCounts{}}
			at[k] = t
			byAnn[k.annotator] = append(byAnn[k.annotator], t)
		}
		t.add(r.Prefill)
	}
	var out []*PrefillTally
	for _, a := range annotators {
		for _, t := range byAnn[foldID(a.Annotator)] {
			// Named as status names the annotator, whatever the case of
			// the records.
			t.Annotator = a.Annotator
			out = append(out, t)
		}
	}
	return out
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
// alone, for a caller that computes the agreement its own way. With them,
// what annotators did with the suggestions of prefilled units (see
// PrefillTally), and each annotator's accuracy on the control units (see
// ControlAccuracy).
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
	rep.Prefill = countPrefill(res, rep.Annotators, len(studies) > 1)
	rep.Controls = controlAccuracy(res.Records, func(id string) string {
		if t := byAnn[foldID(id)]; t != nil {
			return t.Annotator
		}
		return ""
	}, wholeScore)
	return rep
}

package report

import "github.com/annosheet/annosheet/study"

// Progress is how far along the study is: status's counts of units done
// (complete), partial, empty, missing and unreadable, per batch and
// annotator, per annotator, and in all.
type Progress struct {
	Batches    []*study.Tally `json:"batches"`
	Annotators []*study.Tally `json:"annotators"`
	Total      *study.Tally   `json:"total"`
}

// progress is the progress of status's counts s of the pulled records.
func progress(s *study.Status) Progress {
	p := Progress{Batches: s.Batches, Annotators: s.Annotators, Total: s.Total}
	if p.Batches == nil {
		p.Batches = []*study.Tally{}
	}
	if p.Annotators == nil {
		p.Annotators = []*study.Tally{}
	}
	return p
}

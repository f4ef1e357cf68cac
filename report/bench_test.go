package report_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/report"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// counter counts the bytes of a page.
type counter int

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

var _ io.Writer = new(counter)

// BenchmarkReport100k is the report of a study of 100,000 units, each
// for three annotators in batches of 500, from the records to the page,
// as the command makes it (FromStudy): preference-likert (two choices and
// three 1–5 scales, a unit in fifty partial), qa-span-errors (two to four
// error spans a unit, the annotators marking a few of them otherwise) and
// legal-gaps (a multi and a note, gpt4o's and llama3's analyses paired by
// number). Their results are computed with fewer draws, as for any study
// of more than 20,000 units (see resultsOptions), but qa-span-errors's:
// its one group is read from the study's inputs, which records alone do
// not name. It reports the page's size; the README quotes both.
func BenchmarkReport100k(b *testing.B) {
	for _, name := range []string{"preference-likert", "qa-span-errors", "legal-gaps"} {
		b.Run(name, func(b *testing.B) {
			tp, err := templates.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			res := bigStudy(tp, 100_000)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			var size counter
			for range b.N {
				rep, warnings, err := report.FromStudy(context.Background(), report.Study{Template: tp, Records: res.Records, Pulled: res}, report.Options{Sources: []string{"study/"}})
				if err != nil {
					b.Fatal(err)
				}
				if (rep.Results == nil) != (name == "qa-span-errors") {
					b.Fatalf("results %v, warnings %q", rep.Results != nil, warnings)
				}
				size = 0
				if err := report.Write(&size, rep); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size)/1e6, "MB/page")
		})
	}
}

// bigStudy makes the records of a study of n units of template tp, each
// answered by ak, bt and cm, in batches of 500 units per annotator.
func bigStudy(tp *templates.Template, n int) *study.Result {
	r := rand.New(rand.NewPCG(1, 2))
	res := &study.Result{}
	who := []string{"ak", "bt", "cm"}
	for u := range n {
		unit := fmt.Sprintf("u%06d", u)
		base := r.IntN(5) + 1
		if tp.Name == "legal-gaps" {
			unit = fmt.Sprintf("%s-%d", []string{"gpt4o", "llama3"}[u%2], u/2)
		}
		for k, a := range who {
			rec := &records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: tp.Name, Version: tp.Version},
				Batch: fmt.Sprintf("%s-b%03d", a, u/500+1), Unit: unit, Item: unit, Annotator: a, Status: records.StatusComplete,
				Values: map[string]any{}, Source: records.RecordSource{Kind: "xlsx", File: fmt.Sprintf("study/%s-%s-b%03d.xlsx", tp.Name, a, u/500+1), Sheet: "Annotate"}}
			switch tp.Name {
			case "preference-likert":
				codes := []string{"first", "second", "third"}
				v := func() int { return min(5, max(1, base+r.IntN(3)-1)) }
				rec.Values = map[string]any{
					"best_prediction_reference": codes[(base+k*r.IntN(2))%3], "best_prediction_topic": codes[r.IntN(3)],
					"first_prediction_likert": v(), "second_prediction_likert": v(), "third_prediction_likert": v(),
				}
			case "legal-gaps":
				gaps := []string{strconv.Itoa((base + k*r.IntN(2) + u%2) % 4)}
				if r.IntN(3) == 0 {
					gaps = append(gaps, "3")
				}
				rec.Values = map[string]any{"gaps": gaps}
				if r.IntN(4) == 0 {
					rec.Values["note"] = "a note"
				}
			case "qa-span-errors":
				rec.Values["checked"] = true
				types := []string{"Irrelevant", "Redundant", "Incoherent", "Wrong-Grounding", "Unverifiable"}
				for s := range 2 + (u+k)%3 {
					start := s*40 + r.IntN(3)
					end := start + 10 + base*3
					if r.IntN(10) == 0 {
						end += 5 // an annotator marks a little more
					}
					code := types[(u+s)%len(types)]
					if r.IntN(8) == 0 {
						code = types[r.IntN(len(types))]
					}
					rec.Spans = append(rec.Spans, records.SpanAnswer{Question: "errors", Row: s + 2, Field: "prediction",
						Start: &start, End: &end, Text: fmt.Sprintf("span %d of %s", s, unit), Code: code, Label: code})
				}
			}
			if u%50 == 49 && k == 2 {
				rec.Status = records.StatusPartial
				rec.Problems = []records.UnitProblem{{Severity: records.Error, Cell: "Annotate!F2", Message: "a required answer is missing"}}
				res.Problems = append(res.Problems, &records.Problem{Severity: records.Error, File: rec.Source.File, Sheet: "Annotate", Cell: "F2", Record: unit, Message: "a required answer is missing", Err: decode.ErrRequired})
			}
			res.Records = append(res.Records, rec)
		}
	}
	return res
}

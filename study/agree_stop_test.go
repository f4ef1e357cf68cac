package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/stopping"
)

// crowdRecords is a crowd study of preference-likert (two choices, three
// scales): annotators each with one or two records, three to a unit,
// most of them sharing no unit with one another; with common, every
// annotator also does one unit all of them do, so that every pair of
// them shares a unit.
func crowdRecords(tp *templates.Template, annotators int, common bool) []*records.Annotation {
	r := rand.New(rand.NewPCG(61, 62))
	codes := optionCodes(tp.QuestionByName("best_prediction_reference"))
	rec := func(unit, who string) *records.Annotation {
		v := func() int { return r.IntN(5) + 1 }
		return arec(tp, unit, who, records.StatusComplete, map[string]any{
			"best_prediction_reference": codes[r.IntN(len(codes))], "best_prediction_topic": codes[r.IntN(len(codes))],
			"first_prediction_likert": v(), "second_prediction_likert": v(), "third_prediction_likert": v(),
		})
	}
	var recs []*records.Annotation
	for a := range annotators {
		who := fmt.Sprintf("w%05d", a)
		recs = append(recs, rec(fmt.Sprintf("u%05d", a/3), who))
		if a%2 == 0 {
			recs = append(recs, rec(fmt.Sprintf("v%05d", (a/2+7)%(annotators/3)), who))
		}
		if common {
			recs = append(recs, rec("common", who))
		}
	}
	return recs
}

// TestAgreeStopped: agreement stopped while it computes, between pairs
// of annotators or resamples, returns the context's error, never a
// report, nor a note in status's agreement so far.
func TestAgreeStopped(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "preference-likert")
	recs := crowdRecords(tp, 900, false)
	for _, c := range []struct {
		name string
		opt  AgreeOptions
		n    int
	}{
		{"before it starts", AgreeOptions{}, 0},
		{"among pairs", AgreeOptions{}, 12},
		{"among resamples", AgreeOptions{CI: 0.95, Resamples: MaxResamples}, 40},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, err := Agree(stopping.After(context.Background(), c.n), tp, recs, c.opt)
			if !errors.Is(err, context.Canceled) || a != nil {
				t.Errorf("Agree: %v, %v; want no report and %v", a != nil, err, context.Canceled)
			}
		})
	}
	t.Run("status", func(t *testing.T) {
		t.Parallel()
		res := &Result{Records: recs, studyOf: map[*records.Annotation]string{}, templateOf: map[templateKey]*templates.Template{{"s", recs[0].Template}: tp}}
		for _, r := range recs {
			res.studyOf[r] = "s"
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if s, err := CountStatus(ctx, res); !errors.Is(err, context.Canceled) || s != nil {
			t.Errorf("CountStatus: %v, %v; want no status and %v", s != nil, err, context.Canceled)
		}
	})
}

// TestAgreeOptionsRange: options out of their range are refused, as a
// typed error.
func TestAgreeOptionsRange(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "preference-likert")
	recs := crowdRecords(tp, 30, false)
	for _, opt := range []AgreeOptions{
		{CI: math.NaN()}, {CI: 1}, {CI: -0.5}, {CI: 95},
		{CI: 0.95, Resamples: -1}, {CI: 0.95, Resamples: MaxResamples + 1},
		{MaxPairs: -1}, {MaxPairs: MaxListedPairs + 1},
	} {
		if _, err := Agree(context.Background(), tp, recs, opt); !errors.Is(err, ErrAgreeOptions) {
			t.Errorf("%+v: %v, want %v", opt, err, ErrAgreeOptions)
		}
	}
	// At their bounds they are taken: the computation starts, and stops
	// at once as its context is done.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Agree(ctx, tp, recs, AgreeOptions{CI: 0.95, Resamples: MaxResamples, MaxPairs: MaxListedPairs}); !errors.Is(err, context.Canceled) {
		t.Errorf("options at their bounds: %v, want %v", err, context.Canceled)
	}
}

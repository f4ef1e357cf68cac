package study

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
)

// control is a record of unit by who, of a control unit scored as score
// says (nil for one pull did not score).
func control(unit, who, status string, score map[string]float64) *records.Annotation {
	r := prefilled(unit, who, status, nil)
	r.Control, r.ControlScore = true, score
	return r
}

// controlRecords: ak answers three control units (one partial, one under
// the ID typed in capitals) and one the manifest could not score; bt
// answers one and leaves another empty; a unit nobody claimed and a unit
// that is no control count for none.
func controlRecords() []*records.Annotation {
	return []*records.Annotation{
		control("u1", "ak", records.StatusComplete, map[string]float64{"gaps": 1, "label": 0.5}),
		control("u2", "ak", records.StatusPartial, map[string]float64{"gaps": 0.5}),
		control("u3", "ak", records.StatusComplete, nil),
		prefilled("u4", "ak", records.StatusComplete, nil),
		control("u5", "AK", records.StatusComplete, map[string]float64{"gaps": 0}),
		control("u1", "bt", records.StatusComplete, map[string]float64{"gaps": 1.0 / 3}),
		control("u2", "bt", records.StatusEmpty, nil),
		control("u6", "", records.StatusComplete, map[string]float64{"gaps": 1}),
	}
}

// TestControlAccuracy: each annotator's units scored and the mean of
// their units' scores, each unit's the mean of its questions': ak's
// (1+0.5)/2, 0.5 and 0 over 3 units; bt's 1/3 over 1.
func TestControlAccuracy(t *testing.T) {
	t.Parallel()
	want := map[string]*ControlTally{
		"ak": {Units: 3, Score: (0.75 + 0.5 + 0) / 3},
		"bt": {Units: 1, Score: 1.0 / 3},
	}
	if d := cmp.Diff(want, ControlAccuracy(controlRecords())); d != "" {
		t.Errorf("ControlAccuracy (-want +got):\n%s", d)
	}
	if got := ControlAccuracy([]*records.Annotation{prefilled("u1", "ak", records.StatusComplete, nil), control("u2", "ak", records.StatusEmpty, nil)}); got != nil {
		t.Errorf("no scored control: %v", got)
	}
}

// TestControlAccuracyByQuestion: per question, the records that score
// it: ak's gaps 1, 0.5 and 0, label 0.5 in one unit; bt's gaps 1/3.
func TestControlAccuracyByQuestion(t *testing.T) {
	t.Parallel()
	want := map[string]map[string]*ControlTally{
		"gaps":  {"ak": {Units: 3, Score: 0.5}, "bt": {Units: 1, Score: 1.0 / 3}},
		"label": {"ak": {Units: 1, Score: 0.5}},
	}
	if d := cmp.Diff(want, ControlAccuracyByQuestion(controlRecords())); d != "" {
		t.Errorf("ControlAccuracyByQuestion (-want +got):\n%s", d)
	}
}

// TestBelowAccuracy: a message per annotator below the threshold, in the
// order of their IDs, the numbers to two decimals; none at 0.
func TestBelowAccuracy(t *testing.T) {
	t.Parallel()
	acc := map[string]*ControlTally{"bt": {Units: 1, Score: 1.0 / 3}, "ak": {Units: 8, Score: 0.625}, "cm": {Units: 2, Score: 0.8}}
	want := []string{
		"annotator ak: control accuracy 0.62 over 8 units, below 0.80",
		"annotator bt: control accuracy 0.33 over 1 unit, below 0.80",
	}
	if d := cmp.Diff(want, BelowAccuracy(acc, 0.8)); d != "" {
		t.Errorf("below 0.8 (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"annotator bt: control accuracy 0.33 over 1 unit, below 0.50"}, BelowAccuracy(acc, 0.5)); d != "" {
		t.Errorf("below 0.5 (-want +got):\n%s", d)
	}
	if got := BelowAccuracy(acc, 0); got != nil {
		t.Errorf("below 0: %q", got)
	}
}

// TestCountProgressControls: status gives the accuracy on control units
// by annotator as it names them (the ID of their first record of all),
// under "controls"; a study with no scored control has no "controls".
func TestCountProgressControls(t *testing.T) {
	t.Parallel()
	recs := append([]*records.Annotation{prefilled("u0", "Ak", records.StatusEmpty, nil)}, controlRecords()...)
	rep := CountProgress(&Result{Records: recs})
	want := map[string]*ControlTally{"Ak": {Units: 3, Score: 1.25 / 3}, "bt": {Units: 1, Score: 1.0 / 3}}
	if d := cmp.Diff(want, rep.Controls); d != "" {
		t.Errorf("Controls (-want +got):\n%s", d)
	}
	b, err := json.Marshal(rep.Controls)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"Ak":{"units":3,"score":0.4166666666666667},"bt":{"units":1,"score":0.3333333333333333}}`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	plain := &Result{Records: []*records.Annotation{
		prefilled("u1", "ak", records.StatusComplete, nil),
		// A control unit not answered has no score.
		control("u2", "ak", records.StatusEmpty, nil),
	}}
	if b, err = json.Marshal(CountProgress(plain)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "controls") {
		t.Errorf("a status with no scored control names them: %s", b)
	}
}

// TestControlAccuracySharedTwice: a control unit that shared workbooks
// gave one annotator twice counts once, its score the mean of its two.
func TestControlAccuracySharedTwice(t *testing.T) {
	t.Parallel()
	rec := func(unit, batch string, score float64) *records.Annotation {
		return &records.Annotation{Unit: unit, Batch: batch, Annotator: "ak", Status: records.StatusComplete, Control: true, ControlScore: map[string]float64{"gaps": score}}
	}
	got := ControlAccuracy([]*records.Annotation{rec("c1", "b01", 1), rec("c1", "b02", 0), rec("c2", "b02", 1)})
	if want := (&ControlTally{Units: 2, Score: 0.75}); got["ak"] == nil || *got["ak"] != *want {
		t.Errorf("ak: %+v, want %+v", got["ak"], want)
	}
}

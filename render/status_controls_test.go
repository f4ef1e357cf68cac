package render

import (
	"strings"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// TestStatusControls: status writes each annotator's accuracy on the
// control units after the suggestions kept, before the agreement so far,
// a line per annotator in the order of their IDs, aligned; nothing of
// them when no control unit was scored.
func TestStatusControls(t *testing.T) {
	t.Parallel()
	ak := &study.Tally{Batch: "ak-b01", Annotator: "ak", Units: 2, Complete: 2}
	rep := &study.Status{Batches: []*study.Tally{ak}, Annotators: []*study.Tally{ak}, Total: &study.Tally{Units: 2, Complete: 2}}
	var b strings.Builder
	if err := Status(&b, rep, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "control") {
		t.Errorf("control units with none scored:\n%s", b.String())
	}
	rep.Prefill = []*study.PrefillTally{{Annotator: "ak", From: "judge", Units: 2, Questions: map[string]*study.KeptCounts{"gaps": {Kept: 2}}}}
	rep.Controls = map[string]*study.ControlTally{"bt": {Units: 12, Score: 0.41}, "ak": {Units: 4, Score: 0.9275}, "cm": {Units: 1, Score: 1}}
	rep.Agreement = []study.StatusAgreement{{Overlap: 1, Annotators: []string{"ak", "bt"}, Note: "not comparable"}}
	b.Reset()
	if err := Status(&b, rep, false); err != nil {
		t.Fatal(err)
	}
	want := "batch   annotator  units  done  partial  empty  missing  errors  progress\n" +
		"ak-b01  ak         2      2     0        0      0        0       #################### 100%\n" +
		"\n" +
		"study   everyone   2      2     0        0      0        0       #################### 100%\n" +
		"\n" +
		"suggestions from judge: how often each annotator kept them, in the units they answered\n" +
		"  ak  2 units  gaps  2 kept  0 changed  0 cleared  100% kept\n" +
		"\n" +
		"control units (known answers): accuracy by annotator\n" +
		"  ak  4 units   0.93\n" +
		"  bt  12 units  0.41\n" +
		"  cm  1 unit    1.00\n" +
		"\n" +
		"agreement so far (1 unit done by 2 or more annotators: ak, bt)\n" +
		"  not computed: not comparable\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestPulledControls: a pull with scored control units ends with a line
// of each annotator's accuracy, in the order of their IDs, from the
// records (ak's units (1 + 0.5)/2 and 0, a mean of 0.375; bt's 1/3); one
// with none has no such line.
func TestPulledControls(t *testing.T) {
	t.Parallel()
	rec := func(who, unit string, control bool, score map[string]float64) *records.Annotation {
		return &records.Annotation{Unit: unit, Annotator: who, Status: records.StatusComplete, Control: control, ControlScore: score}
	}
	p := &study.Pulled{Result: &study.Result{Workbooks: []study.Workbook{{File: "b01.xlsx"}, {File: "b02.xlsx"}}, Records: []*records.Annotation{
		rec("bt", "c1", true, map[string]float64{"gaps": 1.0 / 3}),
		rec("ak", "c1", true, map[string]float64{"gaps": 1, "label": 0.5}),
		rec("ak", "c2", true, map[string]float64{"gaps": 0}),
		rec("ak", "u1", false, nil),
	}}}
	c := study.Counts{Records: 4, Complete: 4}
	var b strings.Builder
	Pulled(&b, p, c)
	want := "pulled 4 records from 2 workbooks: 4 complete, 0 partial, 0 empty, 0 missing; 0 errors, 0 warnings\n" +
		"control accuracy: ak 0.38 (2 units), bt 0.33 (1 unit)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	p.Records = p.Records[3:]
	b.Reset()
	Pulled(&b, p, study.Counts{Records: 1, Complete: 1})
	if strings.Contains(b.String(), "control") {
		t.Errorf("a pull with no control unit says:\n%s", b.String())
	}
}

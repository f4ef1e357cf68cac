package adjudicate

import (
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// TestGoldRules checks the template's rules on the gold set as pull
// checks them on an annotator's answers: a Final that breaks a rule of
// severity error leaves the unit partial, with a problem at the cell that
// decided it; a warning is reported and the unit stays complete.
func TestGoldRules(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	gaps := func(codes ...string) map[string]any { return map[string]any{"gaps": codes} }
	cases := []struct {
		name   string
		ticks  []string // the Final boxes ticked
		status string
		probs  []string // "severity cell: message part"; F2 is the first Final
	}{
		{"a Final within the rules", []string{"2"}, records.StatusComplete, nil},
		{"0 with another code breaks a rule of severity error", []string{"0", "1"}, records.StatusPartial,
			[]string{"error Gaps!F2: the gold answer breaks a rule: 0 (no gap) cannot be combined", "warning Gaps!F2: the gold answer breaks a rule: 1 (intrinsic error) normally ends the row"}},
		{"3 without 2 is a warning", []string{"3"}, records.StatusComplete,
			[]string{"warning Gaps!F2: the gold answer breaks a rule: 3 (citation error) is considered after 2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := find(t, tp, Options{}, rec(tp, "u1", "a", gaps("1")), rec(tp, "u1", "b", gaps("2")))
			m, rd := book(t, tp, f)
			for _, code := range c.ticks {
				m.set(t, "Gaps", "d0001", "Final: "+layout.OptionName(tp.QuestionByName("gaps"), code), backend.ReadCell{Value: "TRUE", Type: backend.CellBool})
			}
			decided, probs := read(t, m, rd)
			if len(probs) > 0 {
				t.Fatalf("reading: %q", problemsOf(probs))
			}
			gold, gp := Gold(tp, f.Units, f.Items, decided, GoldOptions{})
			if len(gold) != 1 || gold[0].Status != c.status {
				t.Fatalf("gold %+v, want one record, %s", gold, c.status)
			}
			var got []string
			for _, p := range gp {
				got = append(got, p.Severity+" "+p.Sheet+"!"+p.Cell+": "+p.Message)
			}
			if len(got) != len(c.probs) {
				t.Fatalf("problems %q, want %q", got, c.probs)
			}
			for k, want := range c.probs {
				if !strings.HasPrefix(got[k], want) {
					t.Errorf("problem %q, want %q…", got[k], want)
				}
			}
			if c.probs != nil && !slices.ContainsFunc(gold[0].Problems, func(p records.UnitProblem) bool { return strings.Contains(p.Message, "breaks a rule") }) {
				t.Errorf("the record's problems %+v do not say which rule", gold[0].Problems)
			}
		})
	}
}

package goldtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/annosheet/annosheet/templates"
)

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// LegalRecord is a legal-gaps input record with its gold labels.
type LegalRecord struct {
	ID         string `json:"id"`
	GoldLabels []int  `json:"gold_labels"`
}

// ReadJSONL reads a JSON Lines file into values of type T.
func ReadJSONL[T any](path string) ([]T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// FillLegal ticks each record's gold labels (TRUE) and unticks the other
// codes (FALSE), as an annotator with the checkboxes would, and writes the
// annotator's ID.
func FillLegal(w *Workbook, recs []LegalRecord, annotator string) error {
	for _, r := range recs {
		rows := w.Rows[r.ID]
		if len(rows) != 1 {
			return fmt.Errorf("record %s is on %d rows", r.ID, len(rows))
		}
		for code := 0; code <= 3; code++ {
			on := false
			for _, l := range r.GoldLabels {
				on = on || l == code
			}
			if err := w.Set(rows[0], fmt.Sprintf("q:gaps=%d", code), on); err != nil {
				return err
			}
		}
		if err := w.Set(rows[0], "annotator", annotator); err != nil {
			return err
		}
	}
	return nil
}

// QARecord is a QA-Feedback record with its gold feedback.
type QARecord struct {
	Prediction1 string `json:"prediction 1"`
	Feedback    struct {
		Errors []struct {
			Type        string `json:"error type"`
			Explanation string `json:"explanation"`
			Start       int    `json:"start"`
			End         int    `json:"end"`
		} `json:"errors"`
		MissingInfo []struct {
			Type      string `json:"error type"`
			PassageID int    `json:"passage_id"`
			Sentences []int  `json:"sentence_id"`
		} `json:"missing-info"`
		CorrectedPrediction string `json:"corrected-prediction"`
	} `json:"feedback"`
}

// ReadQA reads the QA-Feedback sample.
func ReadQA(path string) ([]QARecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var recs []QARecord
	return recs, json.Unmarshal(b, &recs)
}

// FillQA writes each record's gold feedback into its block: one answer
// row per error (its span copied from the prediction, its type, evidence
// for Inconsistent Fact, the repeated text for Repetitive), then one per
// piece of missing information. A block that needs more rows than it has
// gets rows inserted inside it, as an annotator would. Every block is
// marked Checked, and its corrected prediction, where the record has one,
// written on its first row.
func FillQA(w *Workbook, t *templates.Template, recs []QARecord, annotator string) error {
	q := t.QuestionByName("error_type")
	label := func(code string) (string, error) {
		if o := q.Option(code); o != nil {
			return o.Label, nil
		}
		return "", fmt.Errorf("no error type %q", code)
	}
	for i, r := range recs {
		unit := fmt.Sprintf("q%04d", i)
		need := len(r.Feedback.Errors) + len(r.Feedback.MissingInfo)
		rows := w.Rows[unit]
		if extra := need - len(rows); extra > 0 {
			// Insert the rows before the block's last row, so that they
			// are inside the block.
			last := rows[len(rows)-1]
			if err := w.InsertRows(last, extra); err != nil {
				return err
			}
			rs := w.Rows[unit]
			grown := append([]int{}, rs[:len(rs)-1]...)
			for k := range extra {
				grown = append(grown, last+k)
			}
			w.Rows[unit] = append(grown, rs[len(rs)-1])
		}
		rows = w.Rows[unit]
		pred := []rune(r.Prediction1)
		k := 0
		for _, e := range r.Feedback.Errors {
			row := rows[k]
			k++
			l, err := label(e.Type)
			if err != nil {
				return err
			}
			set := map[string]any{"q:span": string(pred[e.Start:e.End]), "q:error_type": l}
			switch e.Type {
			case "Wrong-Grounding":
				var ev struct {
					Passage   int   `json:"passage_id"`
					Sentences []int `json:"sentence_id"`
				}
				if err := json.Unmarshal([]byte(e.Explanation), &ev); err != nil {
					return err
				}
				set["q:evidence#passage"] = ev.Passage
				set["q:evidence#sentences"] = joinInts(ev.Sentences)
			case "Redundant":
				set["q:repeated"] = e.Explanation
			}
			for key, v := range set {
				if err := w.Set(row, key, v); err != nil {
					return err
				}
			}
		}
		for _, m := range r.Feedback.MissingInfo {
			row := rows[k]
			k++
			l, err := label(m.Type)
			if err != nil {
				return err
			}
			for key, v := range map[string]any{"q:error_type": l, "q:evidence#passage": m.PassageID, "q:evidence#sentences": joinInts(m.Sentences)} {
				if err := w.Set(row, key, v); err != nil {
					return err
				}
			}
		}
		if err := w.Set(rows[0], "q:checked", true); err != nil {
			return err
		}
		if c := r.Feedback.CorrectedPrediction; c != "" {
			if err := w.Set(rows[0], "q:corrected_prediction", c); err != nil {
				return err
			}
		}
		if err := w.Set(rows[0], "annotator", annotator); err != nil {
			return err
		}
	}
	return nil
}

func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, fmt.Sprint(n))
	}
	return strings.Join(s, ", ")
}

// PreferenceLabels are the preference scheme's choices, as shown.
var PreferenceLabels = []string{"First prediction", "Second prediction", "Third prediction"}

// FillPreference answers the given topics of the preference scheme: the
// best prediction against the reference and the topic, and the three
// likert scales, varied from topic to topic: topic i (0-based in units)
// gets labels i%3 and (i+1)%3 and likerts i%5+1, (i+2)%5+1, (i+4)%5+1.
func FillPreference(w *Workbook, units []string, annotator string) error {
	labels := PreferenceLabels
	for i, u := range units {
		row := w.Rows[u][0]
		set := map[string]any{
			"q:best_prediction_reference": labels[i%3],
			"q:best_prediction_topic":     labels[(i+1)%3],
			"q:first_prediction_likert":   i%5 + 1,
			"q:second_prediction_likert":  (i+2)%5 + 1,
			"q:third_prediction_likert":   (i+4)%5 + 1,
			"annotator":                   annotator,
		}
		for k, v := range set {
			if err := w.Set(row, k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// FillFactgenie judges every span of the factgenie meta-evaluation, two
// annotators taking alternate outputs: whether the span is an error, how
// good its explanation is, and a flag on every third span.
func FillFactgenie(w *Workbook) error {
	ok := []string{"Error", "Not an error"}
	expl := []string{"Correct", "Partially correct", "Incomplete", "Vague", "Incorrect"}
	items := map[string]string{} // item -> annotator
	for i, u := range w.Units {
		row := w.Rows[u][0]
		item := u[:strings.LastIndex(u, "#")]
		if _, seen := items[item]; !seen {
			items[item] = []string{"ak", "bt"}[len(items)%2]
		}
		spanOK, exp := ok[i%2], expl[i%5]
		if spanOK == "Not an error" {
			exp = "Not an error"
		}
		for k, v := range map[string]any{"q:span_ok": spanOK, "q:explanation_ok": exp, "q:flags=Too strict": i%3 == 0, "annotator": items[item]} {
			if err := w.Set(row, k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// Package benchdata makes the inputs of the benchmarks and measures their
// memory: legal-gaps records with long context cells (a 1,200-character
// previous context, two cited paragraphs, a generation and a target), the
// shape the README's performance figures are for. Their text is
// prose-like English (ProseText), which compresses as real text does, or
// for comparison with older figures a few words repeated (Text).
// SharedStringsCopy rewrites a workbook the way Excel and LibreOffice
// save it, its text in a shared-strings table.
//
//	path, err := benchdata.LegalInput(dir, 100000)
//	stop := benchdata.PeakHeap()
//	... // the work
//	b.ReportMetric(float64(stop())/1e6, "peak-MB")
package benchdata

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

var words = strings.Fields("the court held that a plan administrator with a conflict of interest must still be given deference " +
	"unless the decision was arbitrary and capricious in light of the record as a whole including the medical evidence")

// Text is deterministic text of about n characters: 33 words repeated in
// a fixed pattern (the Repetitive kind), which deflates more than 30
// times. ProseText is the realistic text.
func Text(seed, n int) string {
	var b strings.Builder
	for i := seed; b.Len() < n; i++ {
		b.WriteString(words[(i*7+seed)%len(words)])
		b.WriteByte(' ')
	}
	return b.String()
}

// LegalInput writes a JSON Lines file of n legal-gaps records of prose
// into dir, or returns the one already there; it is LegalInputKind with
// Prose.
func LegalInput(dir string, n int) (string, error) {
	return LegalInputKind(dir, n, Prose)
}

// LegalInputKind writes a JSON Lines file of n legal-gaps records with
// text of the kind into dir, or returns the one already there.
func LegalInputKind(dir string, n int, kind TextKind) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("legal-%s-%d.jsonl", kind, n))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := range n {
		text := func(field, n int) string {
			if kind == Repetitive {
				return Text(i+field, n) // as before, for comparable figures
			}
			return ProseText(i*8+field, n)
		}
		rec := map[string]any{
			"id":               fmt.Sprintf("r%06d", i),
			"previous_context": text(0, 1200),
			"cited_paragraphs": []map[string]string{
				{"citation": fmt.Sprintf("%d F.3d %d", 500+i%300, i%900), "text": text(1, 400)},
				{"citation": fmt.Sprintf("%d U.S. %d", 300+i%200, i%700), "text": text(2, 400)},
			},
			"generation": text(3, 500),
			"target":     text(4, 500),
		}
		if err := enc.Encode(rec); err != nil {
			return "", err
		}
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return path, f.Close()
}

// PeakHeap samples the heap in use until stop is called and returns the
// peak in bytes.
func PeakHeap() (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// FilledLegalPlan is the legal-gaps plan of n rows of prose (input in
// dir), with the answers filled in as an annotator would leave them: two
// codes ticked, a note on every third row, the annotator's ID. It is
// FilledLegalPlanKind with Prose.
func FilledLegalPlan(dir string, n, cellLimit int) (*backend.Plan, error) {
	return FilledLegalPlanKind(dir, n, cellLimit, Prose)
}

// FilledLegalPlanKind is FilledLegalPlan with text of the kind.
func FilledLegalPlanKind(dir string, n, cellLimit int, kind TextKind) (*backend.Plan, error) {
	in, err := LegalInputKind(dir, n, kind)
	if err != nil {
		return nil, err
	}
	tmpl, err := templates.Builtin("legal-gaps")
	if err != nil {
		return nil, err
	}
	src, err := input.Open("jsonl", []string{in})
	if err != nil {
		return nil, err
	}
	res, err := layout.Build(context.Background(), tmpl, src, layout.Options{Seed: 1, CellLimit: cellLimit})
	if err != nil {
		return nil, err
	}
	cols := map[string]int{}
	for i, c := range tmpl.Columns() {
		cols[c.Key] = i
	}
	ann := res.Plan.Sheets[1]
	rows := ann.Rows
	ann.Rows = func(emit func(backend.Row) error) error {
		k := 0
		return rows(func(r backend.Row) error {
			if k > 0 {
				for key, v := range LegalAnswers(k) {
					r.Cells[cols[key]].Value = v
				}
			}
			k++
			return emit(r)
		})
	}
	return res.Plan, nil
}

// LegalAnswers are the answers FilledLegalPlan fills in on the k-th unit
// (from 1), by the legal-gaps column they go in: code 2 ticked, code 3
// ticked on even units and FALSE on odd ones, a note on every third unit,
// and the annotator's ID. The other columns stay empty.
func LegalAnswers(k int) map[string]any {
	a := map[string]any{"q:gaps=2": true, "q:gaps=3": k%2 == 0, "annotator": "AK"}
	if k%3 == 0 {
		a["q:note"] = "checked the cited case twice"
	}
	return a
}

package decode_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
)

// missingRow is a row an annotator inserts in a qa-span-errors block for
// missing information: no span, an error type and evidence.
func missingRow(m *memBook, sentences string) []string {
	row := blockRowQA(m, "", "Missing Answer")
	row[m.col("q:evidence#passage")], row[m.col("q:evidence#sentences")] = "1", sentences
	return row
}

// TestPullPresort inserts rows in blocks, has the places computed, then
// sorts the sheet: each block reads its rows in the order they had, where
// the sheet tells it, and says so, by cell, where it does not.
func TestPullPresort(t *testing.T) {
	texts := func(spans []records.SpanAnswer) []string {
		var out []string
		for _, s := range spans {
			out = append(out, s.Text+"/"+s.Code)
		}
		return out
	}
	twice := func(m *memBook) {
		// Sorted by the evidence, then by error type: the last sort's
		// groups are not in the order their rows had, and no column
		// tells that order.
		sortBody(m, "q:evidence#sentences", true)
		sortBody(m, "q:error_type", false)
	}
	type want struct {
		q0000, q0001 []string
		probs        []prob // layout problems
	}
	cases := []struct {
		name   string
		insert func(m *memBook)
		sort   func(m *memBook)
		want   want
	}{
		{
			name: "a row in each block, sorted by error type",
			insert: func(m *memBook) {
				insertRow(m, 4, blockRowQA(m, "rains", "Unverifiable Fact")) // q0000, after its second row
				insertRow(m, 12, blockRowQA(m, "bark", "Incoherent"))        // q0001, after its first
			},
			sort: func(m *memBook) { sortBody(m, "q:error_type", false) },
			want: want{q0000: []string{"Paris is big/Irrelevant", "It rains/Unverifiable", "rains/Unverifiable", "Cats fly/Incoherent"},
				q0001: []string{"Dogs bark/Irrelevant", "bark/Incoherent"}},
		},
		{
			name: "a row without a span, sorted by ID",
			insert: func(m *memBook) {
				insertRow(m, 4, missingRow(m, "1"))
			},
			sort: func(m *memBook) { sortBody(m, "id", false) },
			want: want{q0000: []string{"Paris is big/Irrelevant", "It rains/Unverifiable", "/Missing-Answer", "Cats fly/Incoherent"},
				q0001: []string{"Dogs bark/Irrelevant"}},
		},
		{
			name: "rows without spans in both blocks, one with its block's ID, sorted twice: the other has the place left",
			insert: func(m *memBook) {
				insertRow(m, 4, missingRow(m, "0"))
				insertRow(m, 13, missingRow(m, "1")) // q0001, after its second row
				m.setRow(13, "id", "q0001")
			},
			sort: twice,
			want: want{q0000: []string{"Paris is big/Irrelevant", "It rains/Unverifiable", "/Missing-Answer", "Cats fly/Incoherent"},
				q0001: []string{"Dogs bark/Irrelevant", "/Missing-Answer"}},
		},
		{
			name: "rows at the end of a block, sorted by error type, descending",
			insert: func(m *memBook) {
				insertRow(m, 10, blockRowQA(m, "big", "Irrelevant"))
				insertRow(m, 11, blockRowQA(m, "fly", "Incoherent"))
			},
			sort: func(m *memBook) { sortBody(m, "q:error_type", true) },
			want: want{q0000: []string{"Paris is big/Irrelevant", "It rains/Unverifiable", "Cats fly/Incoherent", "big/Irrelevant", "fly/Incoherent"},
				q0001: []string{"Dogs bark/Irrelevant"},
				probs: []prob{
					{"warning", "4:4", "q0000", `rows 4, 7 were inserted after row 8 of block "q0000", and the sheet has been sorted since: their order among themselves cannot be known, so they are read in the order the sheet has them now`, decode.ErrLayout},
				}},
		},
		{
			name: "rows without spans in both blocks, sorted twice: their blocks cannot be known",
			insert: func(m *memBook) {
				insertRow(m, 4, missingRow(m, "0"))
				insertRow(m, 13, missingRow(m, "1"))
			},
			sort: twice,
			want: want{q0000: []string{"Paris is big/Irrelevant", "It rains/Unverifiable", "Cats fly/Incoherent"},
				q0001: []string{"Dogs bark/Irrelevant"},
				probs: []prob{
					{"error", "5:5", "", `the row's answers cannot be read: it was inserted, and the sheet has been sorted since: where it was cannot be known (in block "q0000" or "q0001"); type its block's ID in A5; they are I5="Missing Answer", J5="1", K5="1", N5="AK"`, decode.ErrLayout},
					{"error", "6:6", "", `the row's answers cannot be read: it was inserted, and the sheet has been sorted since: where it was cannot be known (in block "q0000" or "q0001"); type its block's ID in A6; they are I6="Missing Answer", J6="1", K6="0", N6="AK"`, decode.ErrLayout},
				}},
		},
		{
			name: "rows in two places of a block, sorted twice: their places cannot be known",
			insert: func(m *memBook) {
				insertRow(m, 4, blockRowQA(m, "rains", "Unverifiable Fact"))
				insertRow(m, 6, blockRowQA(m, "fly", "Incoherent"))
			},
			sort: twice,
			want: want{q0000: []string{"Paris is big/Irrelevant", "It rains/Unverifiable", "Cats fly/Incoherent", "fly/Incoherent", "rains/Unverifiable"},
				q0001: []string{"Dogs bark/Irrelevant"},
				probs: []prob{
					{"warning", "3:3", "q0000", `the row was inserted in block "q0000", and the sheet has been sorted since: where in the block it was cannot be known, so it is read after the block's other rows`, decode.ErrLayout},
					{"warning", "7:7", "q0000", `the row was inserted in block "q0000", and the sheet has been sorted since: where in the block it was cannot be known, so it is read after the block's other rows`, decode.ErrLayout},
				}},
		},
		{
			name: "two rows in one place, sorted twice: their order cannot be known",
			insert: func(m *memBook) {
				insertRow(m, 4, blockRowQA(m, "rains", "Unverifiable Fact"))
				insertRow(m, 5, blockRowQA(m, "fly", "Incoherent"))
			},
			sort: twice,
			want: want{q0000: []string{"Paris is big/Irrelevant", "It rains/Unverifiable", "fly/Incoherent", "rains/Unverifiable", "Cats fly/Incoherent"},
				q0001: []string{"Dogs bark/Irrelevant"},
				probs: []prob{
					{"warning", "2:2", "q0000", `rows 2, 7 were inserted after row 2 of block "q0000", and the sheet has been sorted since: their order among themselves cannot be known, so they are read in the order the sheet has them now`, decode.ErrLayout},
				}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := filledQA(t)
			c.insert(m)
			m.recalc()
			c.sort(m)
			p := pullMem(t, m, decode.PullOptions{})
			got := want{q0000: texts(record(p, "q0000").Spans), q0001: texts(record(p, "q0001").Spans)}
			for _, pr := range probs(p.Problems) {
				if pr.Err == decode.ErrLayout {
					got.probs = append(got.probs, pr)
				}
			}
			if diff := cmp.Diff(c.want, got, cmpErr, cmp.AllowUnexported(want{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
				logSheet(t, m)
			}
		})
	}
}

// TestPullPresortNeverSilent inserts rows at random places of random
// blocks (with a span of the block's text or a mistyped one, or none; the
// block's ID typed in or not), has the places computed, and sorts the
// sheet by a random column (once or twice): every block reads its rows in
// the order they had, or a problem names the block's inserted rows.
// Nothing is put in a wrong place silently.
func TestPullPresortNeverSilent(t *testing.T) {
	t.Parallel()
	// Spans an annotator copies from the block's own text, or mistypes.
	spans := map[string][]string{"q0000": {"Paris", "big", "It", "rains", "Cats", "fly", "is", "Pari5"}, "q0001": {"Dogs", "bark", "Dog5"}}
	kinds := []string{"Irrelevant", "Incoherent", "Unverifiable Fact", "Missing Answer", ""}
	keys := []string{"id", "q:error_type", "q:span", "annotator", "q:evidence#sentences", "q:checked"}
	for trial := range 300 {
		r := rand.New(rand.NewPCG(uint64(trial), 7))
		m := filledQA(t)
		// Each row says where it belongs, in its Corrected prediction
		// cell (a column nobody sorts by): its block and its order.
		rows := m.annotate()
		note := m.col("q:corrected_prediction")
		for i := 1; i < len(rows); i++ {
			unit := rows[i][m.col("unit")]
			rows[i][note] = fmt.Sprintf("%s %03d", strings.Split(unit, "#")[0], 10*i)
		}
		inserted := r.IntN(4) + 1
		for range inserted {
			at := 2 + r.IntN(len(m.annotate())-1)
			above := m.annotate()[at-2][note]
			if at == 2 {
				above = "q0000 000"
			}
			block, order, _ := strings.Cut(above, " ")
			var n int
			fmt.Sscan(order, &n)
			row := blockRowQA(m, spans[block][r.IntN(len(spans[block]))], kinds[r.IntN(len(kinds))])
			if r.IntN(3) == 0 {
				row[m.col("q:span")] = ""
			}
			if r.IntN(4) == 0 {
				row[m.col("id")] = block // the annotator typed the block's ID
			}
			row[note] = fmt.Sprintf("%s %03d", block, n+1)
			insertRow(m, at, row)
			// Rows below keep their order numbers: relabel the block's.
			relabel(m, note)
		}
		m.recalc()
		for range 1 + r.IntN(2) {
			sortBody(m, keys[r.IntN(len(keys))], r.IntN(2) == 0)
		}
		p := pullMem(t, m, decode.PullOptions{})
		flagged := map[string]bool{}
		for _, pr := range p.Problems {
			if pr.Err == decode.ErrLayout {
				flagged[pr.Record] = true
				if pr.Record == "" {
					flagged["q0000"], flagged["q0001"] = true, true
				}
			}
		}
		for _, unit := range []string{"q0000", "q0001"} {
			if flagged[unit] {
				continue
			}
			rec := record(p, unit)
			var got []string
			sheet := m.annotate()
			for _, n := range blockRowsRead(rec) {
				got = append(got, sheet[n-1][note])
			}
			want := slices.Clone(got)
			sort.Strings(want)
			for _, w := range want {
				if !strings.HasPrefix(w, unit+" ") {
					t.Errorf("trial %d: %s reads a row of another block (%s)", trial, unit, w)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("trial %d: %s reads its rows in the order %q, without a word", trial, unit, got)
				logSheet(t, m)
			}
		}
	}
}

// relabel numbers the rows of each block again in the order they are on
// the sheet, keeping each row's block: what the place of a row is once
// rows were inserted.
func relabel(m *memBook, note int) {
	for i, r := range m.annotate()[1:] {
		block, _, _ := strings.Cut(r[note], " ")
		r[note] = fmt.Sprintf("%s %03d", block, 10*(i+1))
	}
}

// blockRowsRead are the rows of a block record's spans, in the order the
// record has them: the sheet rows it read, as answers.
func blockRowsRead(r *records.Annotation) []int {
	var out []int
	for _, s := range r.Spans {
		out = append(out, s.Row)
	}
	return out
}

// logSheet logs the cells of the Annotate sheet that tell rows apart.
func logSheet(t *testing.T, m *memBook) {
	t.Helper()
	for i, r := range m.annotate() {
		var cells []string
		for _, k := range []string{"id", "q:span", "q:error_type", "q:evidence#sentences", "q:corrected_prediction", "unit"} {
			cells = append(cells, r[m.col(k)])
		}
		t.Logf("row %d: %q", i+1, cells)
	}
}

// FuzzPlaces: whatever the metadata says of the places (any numbers,
// huge, repeated, missing) and however rows were inserted and the sheet
// shuffled, pull reads the workbook without failing, and every row with
// answers is read into a record or quoted in a problem.
func FuzzPlaces(f *testing.F) {
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6}, uint64(1))
	f.Add([]byte{0, 0, 0, 0}, uint64(2))
	f.Add([]byte{255, 254, 253, 128, 64, 32, 16, 8, 4, 2, 1}, uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		m := filledQA(t)
		r := rand.New(rand.NewPCG(seed, 11))
		for i := 0; i < len(data)%4; i++ {
			insertRow(m, 2+r.IntN(len(m.annotate())-1), blockRowQA(m, "rains", "Incoherent"))
		}
		m.recalc()
		// The places as data says: kept, shifted, huge, negative, an
		// error, repeated.
		at := 0
		for _, row := range m.sheets["_annosheet"] {
			if len(row) == 0 || row[0] != "places" {
				continue
			}
			for j := 2; j < len(row); j++ {
				b := byte(0)
				if len(data) > 0 {
					b = data[at%len(data)]
				}
				at++
				switch b % 8 {
				case 1:
					row[j] = fmt.Sprint(int(b) + 2)
				case 2:
					row[j] = "99999999999"
				case 3:
					row[j] = "-3"
				case 4:
					row[j] = "#REF!"
				case 5:
					row[j] = "2"
				}
			}
		}
		body := m.annotate()[1:]
		r.Shuffle(len(body), func(i, j int) { body[i], body[j] = body[j], body[i] })
		p, err := decode.Pull(m.grid(), decode.PullOptions{})
		if err != nil {
			t.Fatal(err)
		}
		read := map[int]bool{}
		for _, rec := range p.Records {
			for _, n := range rec.Source.Rows {
				read[n] = true
			}
		}
		for _, pr := range p.Problems {
			if pr.Row > 0 && strings.Contains(pr.Message, "cannot be read") {
				read[pr.Row] = true
			}
		}
		for i, row := range m.annotate()[1:] {
			if row[m.col("q:span")] != "" && !read[i+2] {
				t.Errorf("row %d (%q) is neither read nor said", i+2, row[m.col("q:span")])
			}
		}
	})
}

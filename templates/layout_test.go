package templates

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnswersAt checks rows.answers: the order of the columns it gives,
// with the annotator on either side, the Check column beside answers on
// the left and last otherwise, how many columns are frozen, and the error
// for any other value.
func TestAnswersAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rows    string // replaces base's "rows:\n  per: record\n"
		ann     string // appended to base: an annotator section
		want    []string
		frozen  int // columns frozen: the ID, the annotator on the left, answers on the left
		wantErr []*Error
	}{
		{
			name:   "default: the answers after the context",
			rows:   "rows:\n  per: record\n",
			want:   []string{"id", "context:question", "context:answer", "q:label", "q:span", "q:score", "annotator", "check", "unit"},
			frozen: 1,
		},
		{
			name:   "right, said",
			rows:   "rows:\n  per: record\n  answers: right\n",
			want:   []string{"id", "context:question", "context:answer", "q:label", "q:span", "q:score", "annotator", "check", "unit"},
			frozen: 1,
		},
		{
			name:   "left: the answers right after the ID",
			rows:   "rows:\n  per: record\n  answers: left\n",
			want:   []string{"id", "q:label", "q:span", "q:score", "check", "context:question", "context:answer", "annotator", "unit"},
			frozen: 4,
		},
		{
			name:   "left, with the annotator on the left too",
			rows:   "rows:\n  per: record\n  answers: left\n",
			ann:    "annotator:\n  position: left\n",
			want:   []string{"id", "annotator", "q:label", "q:span", "q:score", "check", "context:question", "context:answer", "unit"},
			frozen: 5,
		},
		{
			name:    "anything else",
			rows:    "rows:\n  per: record\n  answers: first\n",
			wantErr: []*Error{{File: "t.yaml", Line: 9, Msg: `rows: answers "first" is not left or right`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := edit(t, base, "rows:\n  per: record\n", tt.rows) + tt.ann
			tp, err := Load("t.yaml", []byte(src))
			if d := cmp.Diff(tt.wantErr, errorList(t, err)); d != "" {
				t.Fatalf("errors (-want +got):\n%s", d)
			}
			if err != nil {
				return
			}
			var got []string
			for _, c := range tp.Columns() {
				got = append(got, c.Key)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Columns() (-want +got):\n%s", d)
			}
			if n := tp.FrozenColumns(); n != tt.frozen {
				t.Errorf("%d columns frozen, want %d", n, tt.frozen)
			}
		})
	}
}

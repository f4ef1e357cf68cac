package adjudicate

import (
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
)

// TestSheetNames: a question's sheet never takes the name of a sheet the
// workbook has anyway (the Read sheet of long texts, the Summary …),
// whatever the case, nor one that an application refuses.
func TestSheetNames(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	for _, n := range []string{SheetSummary, backend.SheetInstructions, backend.SheetLists, backend.SheetMeta, backend.SheetRead} {
		used[n], used[strings.ToLower(n)] = true, true
	}
	for header, want := range map[string]string{
		"Read":                  "Read 2",
		"summary":               "summary 2",
		"a/b: [c]?":             "a b c",
		strings.Repeat("x", 40): strings.Repeat("x", 31),
		"'quoted'":              "quoted",
		"":                      "Question",
	} {
		if got := uniqueName(header, used); got != want {
			t.Errorf("sheet of %q is %q, want %q", header, got, want)
		}
	}
	if got := uniqueName("Read", used); got != "Read 3" {
		t.Errorf("a second question headed Read gets %q, want Read 3", got)
	}
}

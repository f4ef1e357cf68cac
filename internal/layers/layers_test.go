// Package layers holds the test that keeps the architecture's layers apart
// (see the house style): the template language and the mapping core know
// nothing about files, spreadsheets or HTTP, and backends do not depend on
// each other or on the command line.
package layers

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/annosheet/annosheet"

// deps lists the packages pkg depends on: every one, or only those it
// imports itself.
func deps(t *testing.T, pkg string, direct bool) []string {
	t.Helper()
	args := []string{"list", "-deps", module + "/" + pkg}
	if direct {
		args = []string{"list", "-f", `{{join .Imports " "}}`, module + "/" + pkg}
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

func TestLayers(t *testing.T) {
	rules := []struct {
		pkg       string
		direct    bool // only what the package imports itself
		forbidden []string
	}{
		{"templates", false, []string{"github.com/xuri/excelize", "google.golang.org/api", "net/http", module + "/mapping", module + "/input", module + "/xlsx", module + "/sheets", module + "/cmd"}},
		{"mapping", false, []string{"github.com/xuri/excelize", "google.golang.org/api", "net/http", module + "/input", module + "/xlsx", module + "/sheets", module + "/cmd"}},
		// Files are read by package input; the template language and the
		// mapping core are pure.
		{"templates", true, []string{"os", "io/fs", "path/filepath"}},
		{"mapping", true, []string{"os", "io/fs", "path/filepath"}},
		{"input", false, []string{"github.com/xuri/excelize", "google.golang.org/api", "net/http", module + "/xlsx", module + "/sheets", module + "/cmd"}},
		{"xlsx", false, []string{"google.golang.org/api", module + "/sheets", module + "/cmd"}},
		// A backend renders the plan that mapping made from a template;
		// it does not read templates itself.
		{"xlsx", true, []string{module + "/templates"}},
		{"sheets", false, []string{"github.com/xuri/excelize", module + "/xlsx", module + "/cmd"}},
		{"sheets", true, []string{module + "/templates"}},
		// The fake stands alone: it knows Google's APIs, not annosheet.
		{"sheets/sheetsfake", false, []string{module + "/mapping", module + "/templates", module + "/xlsx", module + "/cmd"}},
		{"sheets/googleauth", false, []string{"github.com/xuri/excelize", module + "/mapping", module + "/xlsx", module + "/cmd"}},
		{"manifest", false, []string{"github.com/xuri/excelize", "google.golang.org/api", module + "/xlsx", module + "/cmd"}},
		// Export works from canonical records and the inputs, never from a
		// sheet.
		{"export", false, []string{"github.com/xuri/excelize", "google.golang.org/api", module + "/xlsx", module + "/sheets", module + "/cmd"}},
	}
	for _, r := range rules {
		for _, d := range deps(t, r.pkg, r.direct) {
			for _, f := range r.forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("%s depends on %s", r.pkg, d)
				}
			}
		}
	}
}

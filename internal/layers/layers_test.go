// Package layers holds the test that keeps the architecture's layers apart
// (see the house style): the template language and the mapping core know
// nothing about spreadsheet files, HTTP or the file system; the backend
// contract stands on the standard library alone; backends do not depend
// on each other, on the command line or on the mapping core; and the
// test-only harnesses under testkit stay out of production code.
// Every package of the module must have a rule here, so that a new
// package cannot slip past.
package layers

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/annosheet/annosheet"

// Forbidden dependencies, by package path or path prefix.
const (
	excelize = "github.com/xuri/excelize"
	google   = "google.golang.org/api"
	netHTTP  = "net/http"
	harness  = module + "/testkit"
)

// m names a package of the module.
func m(pkg string) string { return module + "/" + pkg }

// A rule says what a package, or every package under a prefix ("x/..."),
// may not depend on.
type rule struct {
	pkg string // relative to the module; "x/..." for x and every package under it
	// optional: the package may not exist yet on this branch.
	optional bool
	// direct lists what the package may not import itself; deps what it
	// may not depend on at all. An entry matches a path and every path
	// under it.
	direct, deps []string
	// stdOnly: the package depends on the standard library alone.
	stdOnly bool
	// allow lists what the package may depend on although deps forbids
	// it (another production helper, for a helper).
	allow []string
	why   string
}

var rules = []rule{
	{pkg: "backend", stdOnly: true,
		why: "the contract between mapping and the backends: plain data, depending on nothing"},
	{pkg: "templates",
		deps: []string{excelize, google, netHTTP, m("layout"), m("backend"), m("xlsx"), m("sheets"), m("cmd"), m("input"), m("study")},
		why:  "the template language knows nothing of records, sheets or HTTP"},
	{pkg: "records",
		deps: []string{excelize, google, netHTTP, m("layout"), m("decode"), m("backend"), m("xlsx"), m("sheets"), m("cmd"), m("input"), m("study"), m("export"), m("agreement"), m("adjudicate"), m("report")},
		why:  "the canonical record and its JSON Lines: below every consumer of records, and below the sheet decoding that makes them"},
	{pkg: "layout",
		deps: []string{excelize, google, netHTTP, m("decode"), m("xlsx"), m("sheets"), m("cmd"), m("input"), m("study"), m("manifest")},
		why:  "plan building: a template and input records to a sheet plan; pure, and knows nothing of reading sheets back, nor of the study's manifest (which alone says which units are controls)"},
	{pkg: "decode",
		deps: []string{excelize, google, netHTTP, m("xlsx"), m("sheets"), m("cmd"), m("input"), m("study"), m("export"), m("manifest")},
		why:  "grid decoding: a filled grid to typed records and problems, reading the layout that layout wrote; pure, and blind to the study's manifest (controls are marked by study)"},
	// Parquet's Brotli codec imports net/http (for an HTTP compressor
	// nobody here calls): input reaches it through Parquet inputs, and
	// every package that reads inputs through input with it. None may
	// import net/http itself.
	{pkg: "input",
		direct: []string{netHTTP},
		deps:   []string{google, m("xlsx"), m("sheets"), m("cmd"), m("study")},
		why:    "reads study inputs, spreadsheets and Parquet files among them; knows nothing of annosheet's workbooks"},
	// A backend renders the plan that mapping made from a template; it
	// does not read templates, nor call into mapping, itself.
	{pkg: "xlsx",
		deps:   []string{google, m("sheets"), m("cmd")},
		direct: []string{m("layout"), m("decode"), m("templates")},
		why:    "the XLSX backend"},
	{pkg: "sheets",
		deps:   []string{excelize, m("xlsx"), m("cmd")},
		direct: []string{m("layout"), m("decode"), m("templates")},
		why:    "the Google Sheets backend"},
	{pkg: "sheets/sheetsfake",
		deps: []string{m("backend"), m("layout"), m("decode"), m("templates"), m("xlsx"), m("cmd")},
		why:  "the fake stands alone: it knows Google's APIs, not annosheet"},
	{pkg: "sheets/googleauth",
		deps: []string{excelize, m("layout"), m("decode"), m("xlsx"), m("cmd")},
		why:  "signing in to Google"},
	// Study, report and render read inputs through package input, which
	// reads spreadsheets with excelize: they may not import it themselves.
	{pkg: "study",
		direct: []string{excelize, netHTTP},
		deps:   []string{google, m("xlsx"), m("sheets"), m("cmd")},
		why:    "talks to backends only through backend.Store and its small interfaces, which cmd fills in"},
	{pkg: "manifest",
		deps: []string{excelize, google, m("xlsx"), m("cmd")},
		why:  "the coordinator's record"},
	// Export works from canonical records and the inputs, never from a
	// sheet.
	{pkg: "export",
		deps: []string{excelize, google, m("xlsx"), m("sheets"), m("cmd")},
		why:  "canonical records to native files"},
	{pkg: "assign",
		deps: []string{excelize, google, netHTTP, m("xlsx"), m("sheets"), m("cmd")},
		why:  "who annotates what: pure"},
	{pkg: "agreement",
		direct: []string{"os", "io", "net", "bufio"},
		deps:   []string{excelize, google, m("layout"), m("decode"), m("records"), m("templates"), m("backend"), m("xlsx"), m("sheets"), m("cmd"), m("input"), m("study"), m("export")},
		why:    "agreement statistics: pure functions over typed records, no I/O"},
	// Compare stands on records, templates and agreement's span matching
	// alone (and the production helpers those use): nothing else of the
	// module.
	{pkg: "compare",
		direct: []string{"os", "io", "net", "bufio"},
		deps:   []string{excelize, google, netHTTP, module},
		allow:  []string{m("records"), m("templates"), m("agreement"), m("internal")},
		why:    "a record against the one it started from, or against known answers: pure functions, no I/O"},
	{pkg: "results",
		direct: []string{"os", "io", "net", "bufio"},
		deps:   []string{excelize, google, m("layout"), m("decode"), m("records"), m("templates"), m("backend"), m("xlsx"), m("sheets"), m("cmd"), m("input"), m("study"), m("export"), m("report"), m("render")},
		why:    "what a study found: pure statistics over the units' values (estimates, intervals, tests), no I/O"},
	{pkg: "adjudicate",
		direct: []string{"os", "io", "net", "bufio"},
		deps:   []string{excelize, google, netHTTP, m("xlsx"), m("sheets"), m("cmd"), m("input"), m("study"), m("export")},
		why:    "adjudication: disagreements -> a workbook plan; its grid -> gold records; no I/O"},
	{pkg: "report",
		direct: []string{"os", "net", "bufio", m("input"), excelize},
		deps:   []string{google, m("xlsx"), m("sheets"), m("cmd"), m("export")},
		why:    "the study report: a pulled study's numbers and their page, written to the writer it is given; no file I/O"},
	{pkg: "render",
		direct: []string{"os", "net", "bufio", m("layout"), m("input"), excelize},
		deps:   []string{google, m("xlsx"), m("sheets"), m("cmd"), m("export"), m("report")},
		why:    "text and CSV for a person: the study's numbers, written to the writer it is given; no file I/O"},
	{pkg: "schema",
		deps: []string{excelize, google, m("xlsx"), m("sheets"), m("cmd")},
		why:  "the JSON Schemas of the canonical record and of the agreement report"},
	{pkg: "cmd/annosheet",
		why: "the CLI: it wires every layer together"},
	{pkg: "cmd/fakesheets",
		deps: []string{m("layout"), m("decode"), m("templates"), m("xlsx"), m("cmd/annosheet")},
		why:  "serves the fake; knows Google's APIs, not annosheet"},
	{pkg: "internal/atomicfile", deps: []string{module}, allow: []string{m("internal/boundedread")}, why: "a production helper: nothing of annosheet but another helper"},
	{pkg: "internal/boundedread", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/csvsafe", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/editdistance", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/filename", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/jsonkeys", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/safetext", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/suggest", deps: []string{module}, allow: []string{m("internal/editdistance")}, why: "a production helper: nothing of annosheet but another helper"},
	{pkg: "internal/cliargs", deps: []string{module}, allow: []string{m("internal/editdistance"), m("internal/words")}, why: "a production helper: nothing of annosheet but another helper"},
	{pkg: "internal/memlimit", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/progress", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/words", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/loopback", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/ojson", deps: []string{module}, why: "a production helper: nothing of annosheet"},
	{pkg: "internal/layers", why: "this test"},
	{pkg: "testkit/...",
		deps: []string{m("cmd")},
		why:  "test-only harnesses: they drive the layers, never the CLI"},
	{pkg: "bench/...",
		deps: []string{m("cmd")},
		why:  "benchmark tools, never built into annosheet: like the harnesses they use, they drive the layers, never the CLI's code"},
}

// pkgInfo is what go list says of a package.
type pkgInfo struct {
	imports, deps []string
}

// list lists the module's packages with their imports and dependencies
// (production code only: tests' imports are not among them), and which
// packages of the whole graph are in the standard library.
func list(t *testing.T) (pkgs map[string]pkgInfo, std map[string]bool) {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list %s/...: %v", module, err)
	}
	pkgs = map[string]pkgInfo{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		pkgs[f[0]] = pkgInfo{imports: strings.Fields(f[1]), deps: strings.Fields(f[2])}
	}
	out, err = exec.Command("go", "list", "-e", "-deps", "-f", `{{.ImportPath}} {{.Standard}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list -deps %s/...: %v", module, err)
	}
	std = map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, isStd, _ := strings.Cut(line, " ")
		std[path] = isStd == "true"
	}
	return pkgs, std
}

// under reports whether path is prefix or a package under it.
func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// covers reports whether a rule applies to the module package path.
func (r rule) covers(path string) bool {
	if base, ok := strings.CutSuffix(r.pkg, "/..."); ok {
		return under(path, m(base))
	}
	return path == m(r.pkg)
}

func TestLayers(t *testing.T) {
	pkgs, std := list(t)

	// Every package has a rule.
	for path := range pkgs {
		if !slices.ContainsFunc(rules, func(r rule) bool { return r.covers(path) }) {
			t.Errorf("%s has no rule in the layers test: add one that says what it may not depend on", path)
		}
	}

	for _, r := range rules {
		found := false
		for path, p := range pkgs {
			if !r.covers(path) {
				continue
			}
			found = true
			for _, d := range p.imports {
				for _, f := range r.direct {
					if under(d, f) {
						t.Errorf("%s imports %s (%s)", path, d, r.why)
					}
				}
			}
			for _, d := range p.deps {
				if d == path {
					continue
				}
				for _, f := range r.deps {
					if under(d, f) && !slices.ContainsFunc(r.allow, func(a string) bool { return under(d, a) }) {
						t.Errorf("%s depends on %s (%s)", path, d, r.why)
					}
				}
				if r.stdOnly && !std[d] {
					t.Errorf("%s depends on %s, outside the standard library (%s)", path, d, r.why)
				}
			}
		}
		if !found && !r.optional {
			t.Errorf("no package %s: a rule for a package that is gone", r.pkg)
		}
	}

	// The test-only harnesses stay out of production code (the benchmark
	// tools are no production code).
	for path, p := range pkgs {
		if under(path, harness) || under(path, m("bench")) {
			continue
		}
		for _, d := range p.deps {
			if under(d, harness) {
				t.Errorf("%s depends on %s, a test-only harness", path, d)
			}
		}
	}
}

// noFileIO are the packages that never touch the file system themselves:
// the template language is given a template's bytes, and the mapping core
// is given its records by package input.
var noFileIO = []string{"templates", "layout", "decode"}

// fileIO are the imports that touch the file system.
var fileIO = []string{"os", m("internal/boundedread")}

func TestNoFileIO(t *testing.T) {
	pkgs, _ := list(t)
	for _, pkg := range noFileIO {
		p, ok := pkgs[m(pkg)]
		if !ok {
			t.Errorf("no package %s", pkg)
		}
		for _, imp := range fileIO {
			if slices.Contains(p.imports, imp) {
				t.Errorf("%s imports %s: file I/O belongs to its callers (input, cmd)", m(pkg), imp)
			}
		}
	}
}

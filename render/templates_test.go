package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/templates"
)

// TestTemplateList: a header, then a line per built-in template with its
// name, version and summary, in columns.
func TestTemplateList(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := TemplateList(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "NAME ") || !strings.Contains(lines[0], "  VERSION  SUMMARY") {
		t.Errorf("header %q", lines[0])
	}
	names := templates.BuiltinNames()
	if len(lines) != len(names)+1 {
		t.Fatalf("%d lines for %d templates:\n%s", len(lines), len(names), b.String())
	}
	col := strings.Index(lines[0], "VERSION")
	for i, name := range names {
		tp, err := templates.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		line := lines[i+1]
		if !strings.HasPrefix(line, tp.Name+" ") || !strings.HasSuffix(line, tp.Summary) || strings.Index(line[col:], "  ") < 0 {
			t.Errorf("line %q, want %s, its version at column %d and its summary", line, tp.Name, col)
		}
	}
}

// TestShowTemplate: a template is written as the YAML it was read from, or
// as JSON with its defaults filled in.
func TestShowTemplate(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	var yaml, js strings.Builder
	if err := ShowTemplate(&yaml, tp, false); err != nil {
		t.Fatal(err)
	}
	if yaml.String() != string(tp.Source) {
		t.Errorf("YAML is not the template's source:\n%s", yaml.String())
	}
	if err := ShowTemplate(&js, tp, true); err != nil {
		t.Fatal(err)
	}
	want, err := json.MarshalIndent(tp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want)+"\n", js.String()); diff != "" {
		t.Errorf("JSON (-want +got)\n%s", diff)
	}
}

// TestTemplateChecks: a line for each file that passes; the problems of
// the others together, in one list; a file that cannot be read as a
// template at all is said as it is.
func TestTemplateChecks(t *testing.T) {
	t.Parallel()
	good := &templates.Template{Name: "mine", Version: 3, Questions: make([]templates.Question, 2)}
	good.Rows.Per = "item"
	problem := func(f string, line int) templates.ErrorList {
		return templates.ErrorList{{File: f, Line: line, Msg: "no questions"}}
	}
	errUnread := &templates.Error{File: "big.yaml", Msg: "larger than the 1 MiB a template may be"}
	type check struct {
		file string
		t    *templates.Template
		err  error
	}
	ok := func(f string) check { return check{file: f, t: good} }
	bad := func(f string) check { return check{file: f, err: problem(f, 4)} }
	const okLine = ": ok (mine version 3: 0 context columns, 2 questions, 0 rules, rows per item)\n"
	for _, tc := range []struct {
		name   string
		checks []check
		want   string
		err    error
	}{
		{name: "none"},
		{name: "all good", checks: []check{ok("a.yaml"), ok("b.yaml")}, want: "a.yaml" + okLine + "b.yaml" + okLine},
		{name: "one bad", checks: []check{ok("a.yaml"), bad("b.yaml")}, want: "a.yaml" + okLine, err: problem("b.yaml", 4)},
		{name: "problems together", checks: []check{bad("a.yaml"), ok("b.yaml"), bad("c.yaml")}, want: "b.yaml" + okLine,
			err: append(problem("a.yaml", 4), problem("c.yaml", 4)...)},
		{name: "one unread, alone", checks: []check{{file: "big.yaml", err: errUnread}}, err: errUnread},
		{name: "one unread among the bad", checks: []check{bad("a.yaml"), {file: "big.yaml", err: errUnread}, bad("c.yaml")}, err: errUnread},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			c := TemplateChecks{W: &b}
			for _, ch := range tc.checks {
				c.Add(ch.file, ch.t, ch.err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("output (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tc.err, c.Err()); diff != "" {
				t.Errorf("Err (-want +got)\n%s", diff)
			}
		})
	}
}

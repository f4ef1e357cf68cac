package templates

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{
		"id", "prediction 1", "feedback.errors[0].start", `["a.b"].c`, `a["x]y"]`, `a["q\"]"]`,
		"a[-1]", "passages[*]", "@", "@.x", "@[0]", "$", "$.x", "$id", "$i2",
		"", "a..b", "a[", "a[x]", "a}b", "$$", "$id.x", `a["b\q"]`, "a[0]b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		if p.String() != s {
			t.Errorf("ParsePath(%q).String() = %q", s, p.String())
		}
		switch {
		case p.Root == "" || p.Root == "@" || p.Root == "$":
		case strings.HasPrefix(p.Root, "$") && len(p.Segs) == 0:
		default:
			t.Errorf("ParsePath(%q): root %q with %d steps", s, p.Root, len(p.Segs))
		}
		// Whatever the path, looking it up in any value must not panic.
		rec := map[string]any{"a": []any{map[string]any{"b": "c"}, []any{"d"}}, "": nil}
		p.Lookup(func(string) (any, bool) { return rec, true })
	})
}

func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{
		"", "plain", "{{x}}", "q{$i:04}", "{$id}#{$n}", "[P{$n1} S{$i2}] {$}", "{doc}-{seg:03}",
		"{", "}", "{a:33}", "{}", "{a..b}", `{["a.b"]}`, "{a:99999999999999999999}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fm, err := ParseFormat(s)
		if err != nil {
			return
		}
		if fm.String() != s {
			t.Errorf("ParseFormat(%q).String() = %q", s, fm.String())
		}
		env := func(root string) (any, bool) {
			if root == "" || root == "@" {
				return map[string]any{"a": "x"}, true
			}
			return "7", true
		}
		got, err := fm.Render(env)
		var me *MissingError
		if err != nil && !errors.As(err, &me) {
			t.Errorf("ParseFormat(%q).Render: %v; want nil or a *MissingError", s, err)
		}
		// Text without braces renders as itself.
		if !strings.ContainsAny(s, "{}") && (err != nil || got != s) {
			t.Errorf("ParseFormat(%q).Render = %q, %v", s, got, err)
		}
	})
}

// loadSeeds are the templates FuzzLoad starts from.
func loadSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, name := range BuiltinNames() {
		src, _ := BuiltinSource(name)
		seeds = append(seeds, src)
	}
	mqm, err := os.ReadFile("../testdata/templates/mqm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seeds = append(seeds, mqm, []byte(base))
	for _, s := range []string{
		"",
		"name: [x",
		"- a\n",
		"null\n",
		"name: x\nversion: 1\ntitle: T\ninstructions: I\ninput: {id: \"{id}\"}\nrows: {per: record}\ncontext: [{name: a, path: a}]\nquestions: [{name: q, type: text}]\n",
		"name: x\nquestions:\n  - name: q\n    type: scale\n    min: 5\n    max: 1\n",
		"name: x\nrules:\n  - question: q\n    exclusive: a\n    when: {all: [{not: {question: q, answered: true}}]}\n",
		"name: x\nexport:\n  format: json-object\n  fields:\n    a: {each: spans, item: {object: {b: {value: q, default: [1, x]}}}}\n",
		"name: x\ncontext:\n  - name: c\n    path: ${p}\n    join: {item: \"[{$n1}] {$}\", separator: \"\"}\nparams: [{name: p, default: a}]\n",
		"name: x\nanonymize: [{field: \"@.e\", as: l}]\nrows: {per: element, path: s, unit: \"{$id}{@.l}\"}\nbands: {key: [\"{@.e}\"], palette: [FFFFFF]}\n",
		"name: x\nrules:\n  - when: &c {question: q, answered: true}\n    then: {all: [*c, *c]}\n",
		"name: x\nexport:\n  fields:\n    a: &e {value: q}\n    b: {json: *e, default: *e}\n",
		// Aliases that repeat aliases, in a constant and in a default.
		"x: {a: &a [1, 1, 1, 1, 1, 1, 1, 1], b: &b [*a, *a, *a, *a, *a, *a, *a, *a], c: &c [*b, *b, *b, *b, *b, *b, *b, *b]}\nname: x\nexport:\n  fields:\n    k: [*c, *c, *c, *c, *c, *c, *c, *c]\n    d: {value: q, default: [*c, *c, *c, *c]}\n",
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// checkLoad is the property FuzzLoad checks: a template whose columns all
// have distinct, non-empty headers, or an ErrorList of located problems.
func checkLoad(t *testing.T, src []byte) {
	tp, err := Load("f.yaml", src)
	if err != nil {
		if tp != nil {
			t.Errorf("Load returned a template with its error")
		}
		var l ErrorList
		if !errors.As(err, &l) || len(l) == 0 {
			t.Fatalf("Load error %v (%T) is not a non-empty ErrorList", err, err)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Load error %v does not wrap ErrInvalid", err)
		}
		for _, e := range l {
			if e == nil || e.Line < 0 || e.File != "f.yaml" || e.Msg == "" {
				t.Errorf("bad problem %#v in %v", e, err)
			}
		}
		return
	}
	seen := map[string]bool{}
	for _, c := range tp.Columns() {
		h := strings.ToLower(strings.TrimSpace(c.Header))
		if h == "" {
			t.Errorf("column %s has an empty header", c.Key)
		}
		if seen[h] {
			t.Errorf("two columns have the header %q", c.Header)
		}
		seen[h] = true
	}
	checkLiveChecks(t, tp)
}

func FuzzLoad(f *testing.F) {
	for _, s := range loadSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkLoad(t, src)
	})
}

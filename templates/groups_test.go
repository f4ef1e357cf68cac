package templates

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withGroups appends a groups section to base, after its export: the
// section starts on line 43, its first group on line 44.
func withGroups(t *testing.T, groups string) string {
	t.Helper()
	return edit(t, base, "    label: {value: label}\n", "    label: {value: label}\ngroups:\n"+groups)
}

// TestGroupErrors: each mistake in a group is reported on the group's line.
func TestGroupErrors(t *testing.T) {
	type e struct {
		line int
		msg  string
	}
	tests := []struct {
		name   string
		groups string
		src    string // instead of base with groups
		want   []e
	}{
		{
			name:   "name missing",
			groups: "  - from: \"{id}\"\n",
			want:   []e{{44, "group: name is missing"}},
		},
		{
			name:   "name with other characters",
			groups: "  - name: the system\n    from: \"{id}\"\n  - name: sys.tem\n    from: \"{id}\"\n",
			want: []e{
				{44, `group name "the system" must be letters, digits, _ or -`},
				{46, `group name "sys.tem" must be letters, digits, _ or -`},
			},
		},
		{
			name:   "declared twice",
			groups: "  - name: system\n    from: \"{id}\"\n  - name: system\n    from: \"{model}\"\n",
			want:   []e{{46, `group "system" is declared twice`}},
		},
		{
			name:   "from missing",
			groups: "  - name: system\n    pattern: \"^(.+)-\"\n",
			want:   []e{{44, `group "system": from is missing: say what names each unit's group, e.g. "{system}", or a literal such as "all"`}},
		},
		{
			name:   "from that does not parse",
			groups: "  - name: system\n    from: \"{id\"\n",
			want:   []e{{44, `group "system" from: format "{id": { without }; write {{ for a brace`}},
		},
		{
			name:   "from with a root rows per record lack",
			groups: "  - name: evaluator\n    from: \"{@.evaluator}\"\n",
			want:   []e{{44, `group "evaluator" from: "@.evaluator" cannot be used here; use a field of the record, $id, $key, $i, $n`}},
		},
		{
			name:   "pair_by with a join's root",
			groups: "  - name: system\n    from: \"{id}\"\n    pair_by: \"{$}\"\n",
			want:   []e{{44, `group "system" pair_by: "$" cannot be used here; use a field of the record, $id, $key, $i, $n`}},
		},
		{
			name:   "pattern that does not compile",
			groups: "  - name: system\n    from: \"{id}\"\n    pattern: \"^([a-z]+-\"\n",
			want:   []e{{44, "group \"system\" pattern \"^([a-z]+-\": missing closing ): `^([a-z]+-`"}},
		},
		{
			name:   "patterns without a capture group",
			groups: "  - name: system\n    from: \"{id}\"\n    pattern: \"^[a-z]+-\"\n    pair_by: \"{id}\"\n    pair_pattern: \"[0-9]+$\"\n",
			want: []e{
				{44, `group "system" pattern "^[a-z]+-" has no capture group: its first (...) gives the value`},
				{44, `group "system" pair_pattern "[0-9]+$" has no capture group: its first (...) gives the value`},
			},
		},
		{
			name:   "pair_pattern without pair_by",
			groups: "  - name: system\n    from: \"{id}\"\n    pair_pattern: \"-([0-9]+)$\"\n",
			want:   []e{{44, `group "system": pair_pattern goes with pair_by`}},
		},
		{
			name:   "unknown key",
			groups: "  - name: system\n    from: \"{id}\"\n    pair: \"{id}\"\n",
			want:   []e{{46, `unknown field "pair" in group (did you mean "pair_by"?)`}},
		},
		{
			name:   "not a list",
			groups: "  name: system\n",
			want:   []e{{44, "expected a list, got a mapping"}},
		},
		{
			name: "candidate in a shuffled template",
			src:  strings.Replace(builtinText(t, "preference-likert"), "\nexport:", "\ngroups:\n  - name: candidate\n    from: \"{id}\"\n\nexport:", 1),
			want: []e{{0, `group "candidate" is reserved: a template that shuffles candidates has it by itself, the candidates' codes; choose another name`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			if src == "" {
				src = withGroups(t, tt.groups)
			}
			_, err := Load("t.yaml", []byte(src))
			var want []*Error
			for _, w := range tt.want {
				line := w.line
				if line == 0 {
					line = lineOf(t, src, "  - name: candidate\n")
				}
				want = append(want, &Error{File: "t.yaml", Line: line, Msg: w.msg})
			}
			if d := cmp.Diff(want, errorList(t, err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// lineOf is the 1-based line where s starts in src, which holds it once.
func lineOf(t *testing.T, src, s string) int {
	t.Helper()
	if strings.Count(src, s) != 1 {
		t.Fatalf("%q occurs %d times; want once", s, strings.Count(src, s))
	}
	return strings.Count(src[:strings.Index(src, s)], "\n") + 1
}

// TestGroupsLoad: groups that read anonymised fields, element fields and
// variables load, as does a group called candidate where nothing is
// shuffled; their JSON keeps only what is set.
func TestGroupsLoad(t *testing.T) {
	src := edit(t, withGroups(t, ""+
		"  - name: system\n    from: \"{meta.system}\"\n    pair_by: \"{$id}\"\n"+
		"  - name: evaluator\n    from: \"{@.evaluator}\"\n"+
		"  - name: candidate\n    from: \"c{$n}\"\n"+
		"  - name: all\n    from: all\n"),
		"rows:\n  per: record\n", "anonymize:\n  - field: meta.system\n    as: system_label\n  - field: \"@.evaluator\"\n    as: evaluator_label\nrows:\n  per: element\n  path: answers\n")
	tp, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	js, err := json.Marshal(tp.Groups)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"system","from":"{meta.system}","pair_by":"{$id}"},{"name":"evaluator","from":"{@.evaluator}"},{"name":"candidate","from":"c{$n}"},{"name":"all","from":"all"}]`
	if string(js) != want {
		t.Errorf("groups JSON:\n got %s\nwant %s", js, want)
	}
	if g := tp.Group("evaluator"); g == nil || g.Name != "evaluator" || g.Line != 53 || g.Paired() {
		t.Errorf("Group(evaluator) = %+v", g)
	}
	if g := tp.Group("system"); g == nil || !g.Paired() {
		t.Errorf("Group(system) = %+v; want a paired group", g)
	}
	if g := tp.Group("nope"); g != nil {
		t.Errorf("Group(nope) = %+v; want nil", g)
	}
	if tp, err := Load("t.yaml", []byte(base)); err != nil || tp.Groups != nil || tp.Group("system") != nil {
		t.Errorf("base: groups %v, %v", tp.Groups, err)
	}
}

// TestGroupValues renders groups and pair keys, and each way they fail.
func TestGroupValues(t *testing.T) {
	tp, err := Load("t.yaml", []byte(withGroups(t, ""+
		"  - name: system\n    from: \"{id}\"\n    pattern: \"^([A-Za-z0-9.]+)-\"\n    pair_by: \"{id}\"\n    pair_pattern: \"-([0-9]+)$\"\n"+
		"  - name: model\n    from: \"{model}/{size:04}\"\n    pair_by: \"{$id}\"\n"+
		"  - name: all\n    from: all\n"+
		"  - name: prefix\n    from: \"{id}\"\n    pattern: \"^([a-z]*)\"\n")))
	if err != nil {
		t.Fatal(err)
	}
	env := func(rec map[string]any) Env {
		return func(root string) (any, bool) {
			switch root {
			case "":
				return rec, true
			case "$id":
				return rec["id"], rec["id"] != nil
			}
			return nil, false
		}
	}
	rec := env(map[string]any{"id": "gpt4o-11", "model": "llama", "size": json.Number("70")})
	for _, tc := range []struct {
		group, value, pair string
	}{
		{"system", "gpt4o", "11"},
		{"model", "llama/0070", "gpt4o-11"},
		{"all", "all", ""},
		{"prefix", "gpt", ""},
	} {
		g := tp.Group(tc.group)
		if v, err := g.Value(rec); v != tc.value || err != nil {
			t.Errorf("%s: Value = %q, %v; want %q", tc.group, v, err, tc.value)
		}
		if !g.Paired() {
			if _, err := g.PairKey(rec); err == nil {
				t.Errorf("%s: PairKey of a group without pair_by succeeded", tc.group)
			}
			continue
		}
		if k, err := g.PairKey(rec); k != tc.pair || err != nil {
			t.Errorf("%s: PairKey = %q, %v; want %q", tc.group, k, err, tc.pair)
		}
	}

	for _, tc := range []struct {
		group string
		rec   map[string]any
		pair  bool
		want  string
	}{
		{"system", map[string]any{"id": "gpt4o"}, false, `group "system": "gpt4o" does not match the pattern "^([A-Za-z0-9.]+)-"`},
		{"system", map[string]any{"id": "gpt4o-x"}, true, `group "system": "gpt4o-x" does not match the pair_pattern "-([0-9]+)$"`},
		{"system", map[string]any{}, false, `group "system": from "{id}": no field "id"`},
		{"model", map[string]any{"size": 1}, false, `group "model": from "{model}/{size:04}": no field "model"`},
		{"model", map[string]any{"id": " ", "model": "m", "size": 1}, true, `group "model": pair_by "{$id}" gives an empty value`},
		{"prefix", map[string]any{"id": "42"}, false, `group "prefix": the pattern "^([a-z]*)" captures nothing in "42"`},
	} {
		g := tp.Group(tc.group)
		var err error
		if tc.pair {
			_, err = g.PairKey(env(tc.rec))
		} else {
			_, err = g.Value(env(tc.rec))
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %v: error %v; want %s", tc.group, tc.rec, err, tc.want)
		}
	}
	// A missing field stays a *MissingError, so that callers can name it.
	var me *MissingError
	if _, err := tp.Group("system").Value(env(map[string]any{})); !errors.As(err, &me) || me.Path != "id" {
		t.Errorf("error %v does not hold the missing field", err)
	}
	empty := &Group{Name: "e", From: ""}
	if _, err := empty.Value(env(nil)); err == nil || err.Error() != `group "e": from "" gives an empty value` {
		t.Errorf("empty from: %v", err)
	}
}

// TestBuiltinGroups pins the groups the built-ins declare.
func TestBuiltinGroups(t *testing.T) {
	type group struct{ Name, From, Pattern, PairBy, PairPattern string }
	want := map[string][]group{
		"legal-gaps":          {{"system", "{id}", "^([A-Za-z0-9.]+)-", "{id}", "-([0-9]+)$"}},
		"factgenie-meta-eval": {{"evaluator", "{@.evaluator}", "", "", ""}, {"system", "{setup_id}", "", "", ""}},
		"qa-span-errors":      {{"all", "all", "", "", ""}},
		"preference-likert":   nil,
	}
	for name, w := range want {
		tp, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		var got []group
		for _, g := range tp.Groups {
			got = append(got, group{g.Name, g.From, g.Pattern, g.PairBy, g.PairPattern})
		}
		if d := cmp.Diff(w, got); d != "" {
			t.Errorf("%s: groups (-want +got):\n%s", name, d)
		}
	}
}

package templates

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// formulaTemplate has a question of every type, for the compiler's tests.
const formulaTemplate = `name: f
version: 1
title: Formulas
instructions: Answer.
input: {id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: pick, header: Pick, type: choice, required: true, options: [{code: y, label: "Yes"}, {code: n, label: "No \"really\""}]}
  - {name: tags, header: Tags, type: multi, required: true, options: [{code: a, label: Alpha}, {code: b, label: Beta}]}
  - {name: codes, header: Codes, type: multi, render: list, options: [{code: "1", label: One}, {code: "2"}]}
  - {name: score, header: Score, type: scale, min: 1, max: 5, unanswered: 0}
  - {name: ok, header: OK, type: bool}
  - {name: note, header: Note, type: text}
  - {name: quote, header: Quote, type: span, field: text, occurrence: true}
  - {name: earlier, header: Earlier, type: span, field: text, before: quote}
rules:
  - {question: tags, exclusive: a, check: a excludes other tags}
`

// letterRefs finds each column at its generated place, on row 2; a
// block is rows 2 to 9.
func letterRefs(t *Template) CheckRefs {
	at := map[string]string{}
	for i, c := range t.Columns() {
		at[c.Key] = letter(i)
	}
	return CheckRefs{
		Cell:  func(key string) string { return at[key] + "2" },
		Block: func(key string) string { return at[key] + "2:" + at[key] + "9" },
	}
}

func letter(i int) string {
	s := ""
	for i++; i > 0; i = (i - 1) / 26 {
		s = string(rune('A'+(i-1)%26)) + s
	}
	return s
}

func mustLoad(t *testing.T, src string) *Template {
	t.Helper()
	tp, err := Load("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// TestCompileCond is the formula of every kind of condition, on every
// type of question it applies to. Columns: C pick, D-E tags, F codes, G
// score, H ok, I note, J quote, K its occurrence, L earlier.
func TestCompileCond(t *testing.T) {
	tp := mustLoad(t, formulaTemplate)
	c := &compiler{t: tp, r: letterRefs(tp)}
	n := func(i int) *int { return &i }
	yes, no := true, false
	ticked := func(cell string) string {
		return `ISNUMBER(FIND("|"&LOWER(TRIM(` + cell + `))&"|","|true|1|x|yes|y|✓|✔|☑|checked|wahr|vrai|"))`
	}
	unticked := func(cell string) string {
		return `ISNUMBER(FIND("|"&LOWER(TRIM(` + cell + `))&"|","|false|0|no|n|☐|unchecked|falsch|faux|"))`
	}
	list := `","&UPPER(SUBSTITUTE(SUBSTITUTE(SUBSTITUTE(SUBSTITUTE(TRIM(F2),";",",")," ,",","),", ",","),", ",","))&","`
	cases := []struct {
		name string
		cond Cond
		want string
	}{
		{"choice answered", Cond{Question: "pick", Answered: &yes}, `LEN(TRIM(C2))>0`},
		{"choice left empty", Cond{Question: "pick", Answered: &no}, `NOT(LEN(TRIM(C2))>0)`},
		{"choice any_of: code or label, quotes doubled", Cond{Question: "pick", AnyOf: []string{"y", "n"}},
			`OR(TRIM(C2)="y",TRIM(C2)="Yes",TRIM(C2)="n",TRIM(C2)="No ""really""")`},
		{"choice none_of", Cond{Question: "pick", NoneOf: []string{"y"}}, `NOT(OR(TRIM(C2)="y",TRIM(C2)="Yes"))`},
		{"choice only: none of the others", Cond{Question: "pick", Only: []string{"y"}}, `NOT(OR(TRIM(C2)="n",TRIM(C2)="No ""really"""))`},
		{"checkboxes answered: any cell filled", Cond{Question: "tags", Answered: &yes}, `OR(LEN(TRIM(D2))>0,LEN(TRIM(E2))>0)`},
		{"checkboxes any_of", Cond{Question: "tags", AnyOf: []string{"b"}}, ticked("E2")},
		{"checkboxes all_of", Cond{Question: "tags", AllOf: []string{"a", "b"}}, "AND(" + ticked("D2") + "," + ticked("E2") + ")"},
		{"checkboxes only", Cond{Question: "tags", Only: []string{"a"}}, "NOT(" + ticked("E2") + ")"},
		{"code list any_of: code or label", Cond{Question: "codes", AnyOf: []string{"1"}},
			`OR(ISNUMBER(FIND(","&UPPER("1")&",",` + list + `)),ISNUMBER(FIND(","&UPPER("One")&",",` + list + `)))`},
		{"scale answered: not the not-yet value", Cond{Question: "score", Answered: &yes},
			`AND(LEN(TRIM(G2))>0,NOT(IFERROR(VALUE(TRIM(G2))=0,FALSE)))`},
		{"scale at_least", Cond{Question: "score", AtLeast: n(3)},
			`IFERROR(AND(VALUE(TRIM(G2))=INT(VALUE(TRIM(G2))),VALUE(TRIM(G2))>=3,VALUE(TRIM(G2))<=5),FALSE)`},
		{"scale at_most: the scale's bottom", Cond{Question: "score", AtMost: n(2)},
			`IFERROR(AND(VALUE(TRIM(G2))=INT(VALUE(TRIM(G2))),VALUE(TRIM(G2))>=1,VALUE(TRIM(G2))<=2),FALSE)`},
		{"scale range", Cond{Question: "score", AtLeast: n(2), AtMost: n(4)},
			`IFERROR(AND(VALUE(TRIM(G2))=INT(VALUE(TRIM(G2))),VALUE(TRIM(G2))>=2,VALUE(TRIM(G2))<=4),FALSE)`},
		{"bool true", Cond{Question: "ok", AnyOf: []string{"true"}}, ticked("H2")},
		{"bool false", Cond{Question: "ok", AnyOf: []string{"false"}}, unticked("H2")},
		{"bool only true", Cond{Question: "ok", Only: []string{"true"}}, "NOT(" + unticked("H2") + ")"},
		{"text answered", Cond{Question: "note", Answered: &yes}, `LEN(TRIM(I2))>0`},
		{"span answered", Cond{Question: "quote", Answered: &yes}, `LEN(TRIM(J2))>0`},
		{"all, any, not", Cond{All: []*Cond{
			{Any: []*Cond{{Question: "note", Answered: &yes}, {Question: "quote", Answered: &yes}}},
			{Not: &Cond{Question: "pick", Answered: &no}},
		}}, `AND(OR(LEN(TRIM(I2))>0,LEN(TRIM(J2))>0),LEN(TRIM(C2))>0)`},
		{"no condition holds", Cond{All: []*Cond{}}, `TRUE`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.cond(&tc.cond); got != tc.want {
				t.Errorf("formula\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestLiveChecks is every check of a template with a question of every
// type: what it is about, when it applies, and what it says.
func TestLiveChecks(t *testing.T) {
	tp := mustLoad(t, formulaTemplate)
	checks := tp.LiveChecks(letterRefs(tp))
	type row struct {
		Name, Severity string
		Keys           []string
		Gated          bool
		Text           string
	}
	var got []row
	for _, lc := range checks {
		got = append(got, row{lc.Name, lc.Severity, lc.Keys, lc.Gate != "", lc.Text})
	}
	want := []row{
		{"required:pick", "warning", []string{"q:pick"}, true, `"Pick missing"`},
		{"required:tags", "warning", []string{"q:tags=a", "q:tags=b"}, true, `"Tags missing"`},
		{"annotator", "error", []string{"annotator"}, true, `"Annotator ID missing"`},
		{"rule:0", "error", []string{"q:tags=a", "q:tags=b"}, true, `"a excludes other tags"`},
		{"span:quote", "error", []string{"q:quote"}, false, `"Quote not in Text"`},
		{"occurrence:quote", "error", []string{"q:quote", "q:quote#occurrence"}, false,
			`"Quote occurs "&IFERROR((LEN(B2)-LEN(SUBSTITUTE(B2,J2,"")))/LEN(J2),0)&" times in Text: give its occurrence"`},
		{"occurrence-range:quote", "error", []string{"q:quote#occurrence"}, false,
			`"Quote: occurrence "&TRIM(K2)&" of "&IFERROR((LEN(B2)-LEN(SUBSTITUTE(B2,J2,"")))/LEN(J2),0)`},
		{"span:earlier", "error", []string{"q:earlier"}, false, `"Earlier not in Text"`},
		{"before:earlier", "error", []string{"q:earlier"}, false, `"Earlier not before Quote"`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}

	byName := map[string]LiveCheck{}
	for _, lc := range checks {
		byName[lc.Name] = lc
	}
	count := `IFERROR((LEN(B2)-LEN(SUBSTITUTE(B2,J2,"")))/LEN(J2),0)`
	for name, want := range map[string]string{
		// A row is started by any answer, the not-yet score aside.
		"required:pick":          `AND(OR(LEN(TRIM(C2&D2&E2&F2&H2&I2&J2&K2&L2))>0,AND(LEN(TRIM(G2))>0,NOT(IFERROR(VALUE(TRIM(G2))=0,FALSE)))),NOT(LEN(TRIM(C2))>0))`,
		"span:quote":             `AND(LEN(TRIM(J2))>0,` + count + `=0)`,
		"occurrence:quote":       `AND(LEN(TRIM(J2))>0,` + count + `>1,NOT(LEN(TRIM(K2))>0))`,
		"occurrence-range:quote": `AND(LEN(TRIM(J2))>0,` + count + `>0,LEN(TRIM(K2))>0,NOT(IFERROR(AND(VALUE(TRIM(K2))=INT(VALUE(TRIM(K2))),VALUE(TRIM(K2))>=1,VALUE(TRIM(K2))<=` + count + `),FALSE)))`,
		"before:earlier": `IFERROR(AND(LEN(TRIM(L2))>0,LEN(TRIM(J2))>0,IFERROR((LEN(B2)-LEN(SUBSTITUTE(B2,L2,"")))/LEN(L2),0)>0,OR(` + count + `=1,AND(` + count + `>1,LEN(TRIM(K2))>0)),` +
			`FIND(CHAR(1),SUBSTITUTE(B2,L2,CHAR(1),1))+LEN(L2)>FIND(CHAR(1),SUBSTITUTE(B2,J2,CHAR(1),IF(LEN(TRIM(K2))>0,VALUE(TRIM(K2)),1)))),FALSE)`,
	} {
		if got := byName[name].Formula(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	if got, want := byName["rule:0"].Fails, "AND("+ticksOf("D2")+","+ticksOf("E2")+")"; got != want {
		t.Errorf("exclusive rule fails:\n got %s\nwant %s", got, want)
	}
}

func ticksOf(cell string) string { return ticked(cell) }

// TestLiveChecksBlocks: in blocks, required questions and rules of the
// answer rows are checked on every row that has answers, those asked
// once per block, and the annotator, once per block over its rows.
func TestLiveChecksBlocks(t *testing.T) {
	src := `name: b
version: 1
title: Blocks
instructions: Answer.
input: {id: "{id}"}
rows: {per: block, answer_rows: 8}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: done, header: Done, type: bool, scope: block, required: true}
  - {name: span, header: Span, type: span, field: text}
  - {name: kind, header: Kind, type: choice, required: true, options: [{code: x}, {code: y}]}
rules:
  - {require: span, when: {question: kind, any_of: [x]}, message: x needs a span}
  - {require: done, when: {question: done, answered: false}, message: never}
`
	tp := mustLoad(t, src)
	checks := tp.LiveChecks(letterRefs(tp))
	got := map[string]string{}
	for _, lc := range checks {
		got[lc.Name] = strconv.FormatBool(lc.Block) + " " + lc.Gate
	}
	row := `LEN(TRIM(D2&E2))>0`
	block := `OR(SUMPRODUCT(LEN(TRIM(C2:C9)))>0,SUMPRODUCT(LEN(TRIM(D2:D9)))>0,SUMPRODUCT(LEN(TRIM(E2:E9)))>0)`
	want := map[string]string{
		"required:done":   "true " + block,
		"required:kind":   "false " + row,
		"annotator":       "true " + block,
		"rule:0":          "false " + row,
		"rule:1":          "true " + block,
		"span:span":       "false ",
		"occurrence:span": "false ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checks: block, gate (-want +got):\n%s", diff)
	}
	for _, lc := range checks {
		if lc.Name == "annotator" && lc.Fails != `NOT(SUMPRODUCT(LEN(TRIM(F2:F9)))>0)` {
			t.Errorf("annotator: %s", lc.Fails)
		}
	}
}

// TestCheckText is the Check cell's formula: checks that share a gate
// share it, the words of those that fail are joined by "; ", and an error
// in a cell gives a message instead of an error.
func TestCheckText(t *testing.T) {
	checks := []LiveCheck{
		{Gate: "G", Fails: "F1", Text: `"one"`},
		{Gate: "G", Fails: "F2", Text: `"two "&N&" times"`},
		{Fails: "F3", Text: `"three"`},
	}
	want := `IFERROR(MID(IF(G,IF(F1,"; one","")&IF(F2,"; two "&N&" times",""),"")&IF(F3,"; three",""),3,1000),"a cell shows an error")`
	if got := CheckText(checks); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if got := CheckText(nil); got != `""` {
		t.Errorf("no checks: %s", got)
	}
}

func TestFormulaHelpers(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{not(not("A1>0")), "A1>0"},
		{not("NOT(A1)+NOT(B1)"), "NOT(NOT(A1)+NOT(B1))"},
		{not(`NOT(")(")`), `")("`},
		{and("TRUE", "X"), "X"},
		{and("FALSE", "X"), "FALSE"},
		{or("FALSE"), "FALSE"},
		{or(), "FALSE"},
		{and(), "TRUE"},
		{concat(`"a"`, `"b"`, "N", `"c"`), `"ab"&N&"c"`},
		{concat(`"a"""`, `"b"`), `"a""b"`},
		{and("X", "AND(Y,Z)", `AND(",")`), `AND(X,Y,Z,",")`},
		{literal(strings.Repeat("é", 300)), `"` + strings.Repeat("é", 254) + `…"`},
		{literal(strings.Repeat("😀", 200)), `"` + strings.Repeat("😀", 127) + `…"`},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

// TestBuiltinLiveChecks: every built-in compiles, each check within the
// limit of a formula, and the Check cell too.
func TestBuiltinLiveChecks(t *testing.T) {
	for _, name := range BuiltinNames() {
		tp, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		checks := tp.LiveChecks(letterRefs(tp))
		if len(checks) == 0 {
			t.Errorf("%s: no live checks", name)
		}
		for _, lc := range checks {
			if len(lc.Formula()) > MaxFormula/2 {
				t.Errorf("%s: %s: formula of %d characters", name, lc.Name, len(lc.Formula()))
			}
		}
		text := CheckText(checks)
		if strings.Count(text, "IF(") < len(checks) {
			t.Errorf("%s: the Check cell leaves checks out (%d characters)", name, len(text))
		}
		t.Logf("%s: %d checks, Check cell formula of %d characters", name, len(checks), len(text))
	}
}

// TestCheckColumnHeader: the Check column takes a header no other column
// has, so that pull finds every column by its header.
func TestCheckColumnHeader(t *testing.T) {
	for _, c := range []struct {
		headers []string
		want    string
	}{
		{nil, "Check"},
		{[]string{" check "}, "Live check"},
		{[]string{"CHECK", "Live  Check"}, "Sheet check"},
		{[]string{"Check", "Live check", "Sheet check"}, "Check 2"},
		{[]string{"Check", "Live check", "Sheet check", "check 2"}, "Check 3"},
	} {
		src := formulaTemplate
		for i, h := range c.headers {
			src = strings.Replace(src, "rules:\n", "  - {name: extra"+strconv.Itoa(i)+", header: \""+h+"\", type: text}\nrules:\n", 1)
		}
		tp := mustLoad(t, src)
		cols := tp.Columns()
		if got := cols[len(cols)-2]; got.Role != RoleCheck || got.Header != c.want {
			t.Errorf("%q: check column %+v, want header %q", c.headers, got, c.want)
		}
	}
}

// checkLiveChecks is what FuzzLoad checks of a template's live checks:
// they compile, each to formulas whose parentheses and string constants
// are whole, and the Check cell's formula keeps within Excel's limit.
func checkLiveChecks(t *testing.T, tp *Template) {
	t.Helper()
	checks := tp.LiveChecks(letterRefs(tp))
	for _, lc := range checks {
		for _, f := range []string{lc.Formula(), lc.Text} {
			if !balanced(f) {
				t.Errorf("%s: unbalanced formula %q", lc.Name, f)
			}
		}
	}
	if f := CheckText(checks); !balanced(f) || len(f) > MaxFormula {
		t.Errorf("Check formula of %d characters, balanced %v", len(f), balanced(f))
	}
}

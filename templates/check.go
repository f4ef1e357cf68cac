package templates

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

var (
	nameRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
	groupRe = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	colorRe = regexp.MustCompile(`^[0-9A-Fa-f]{6}$`)
)

// Defaults filled in by check.
const (
	DefaultIDHeader        = "ID"
	DefaultAnnotatorHeader = "Annotator ID"
	DefaultSpans           = "spans"
	DefaultUnit            = "{$id}#{$n}"
	UnitHeader             = "Unit"
)

// DefaultPalette is the cycle of band colours: light enough to read text
// on, different enough to see a change of group.
var DefaultPalette = []string{"DDEBF7", "FCE4D6", "E2EFDA", "EDE2F6"}

// check validates t, fills in defaults and compiles paths and formats.
func check(t *Template, c *errs, overrides map[string]string) {
	k := &checker{t: t, c: c}
	k.top()
	k.params(overrides)
	k.input()
	k.rows()
	k.answersAt()
	k.anonymize()
	k.revealing()
	k.context()
	k.idDisplay()
	k.questions()
	k.shuffle()
	k.rules()
	k.annotator()
	k.bands()
	k.groups()
	k.export()
	k.headers()
}

type checker struct {
	t *Template
	c *errs
	// dup holds question names declared twice, already reported; their
	// columns are left out of the header check.
	dup map[string]bool
}

func (k *checker) top() {
	t := k.t
	switch {
	case t.Name == "":
		k.c.add(1, "name is missing")
	case !nameRe.MatchString(t.Name):
		k.c.add(1, "name %q must be lower-case letters, digits, '.', '_' or '-' (it names files)", t.Name)
	}
	if t.Version < 1 {
		k.c.add(1, "version must be a whole number of 1 or more")
	}
	if strings.TrimSpace(t.Title) == "" {
		k.c.add(1, "title is missing")
	}
	if strings.TrimSpace(t.Instructions) == "" {
		k.c.add(1, "instructions are missing: annotators need them on the Instructions sheet")
	}
	if t.Summary == "" {
		t.Summary = t.Title
	}
}

func (k *checker) params(overrides map[string]string) {
	t := k.t
	t.params = map[string]string{}
	for i := range t.Params {
		p := &t.Params[i]
		if !identRe.MatchString(p.Name) {
			k.c.add(p.Line, "parameter name %q must be letters, digits and _", p.Name)
			continue
		}
		if _, dup := t.params[p.Name]; dup {
			k.c.add(p.Line, "parameter %q is declared twice", p.Name)
		}
		t.params[p.Name] = p.Default
	}
	for _, name := range sortedKeys(overrides) {
		if _, ok := t.params[name]; !ok {
			has := "this template has no parameters"
			if len(t.params) > 0 {
				has = "this template has: " + strings.Join(sortedKeys(t.params), ", ")
			}
			k.c.add(0, "no parameter %q (%s)", name, has)
			continue
		}
		t.params[name] = overrides[name]
	}
}

// ParamValues returns the value of every parameter, defaults included.
func (t *Template) ParamValues() map[string]string {
	out := make(map[string]string, len(t.params))
	for k, v := range t.params {
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// path expands parameters in s and parses it; roots lists the roots the
// path may start from ("" for the record).
func (k *checker) path(line int, what, s string, roots ...string) Path {
	s, err := expandParams(s, k.t.params)
	if err != nil {
		k.c.add(line, "%s: %v", what, err)
		return Path{}
	}
	p, err := ParsePath(s)
	if err != nil {
		k.c.add(line, "%s: %v", what, err)
		return Path{}
	}
	k.root(line, what, p, roots)
	return p
}

func (k *checker) format(line int, what, s string, roots ...string) Format {
	s, err := expandParams(s, k.t.params)
	if err != nil {
		k.c.add(line, "%s: %v", what, err)
		return Format{}
	}
	f, err := ParseFormat(s)
	if err != nil {
		k.c.add(line, "%s: %v", what, err)
		return Format{}
	}
	for _, p := range f.Paths() {
		k.root(line, what, p, roots)
	}
	return f
}

func (k *checker) root(line int, what string, p Path, roots []string) {
	if slices.Contains(roots, p.Root) {
		return
	}
	var names []string
	for _, r := range roots {
		switch r {
		case "":
			names = append(names, "a field of the record")
		case "@":
			names = append(names, "@ (the row's list element)")
		default:
			names = append(names, r)
		}
	}
	k.c.add(line, "%s: %q cannot be used here; use %s", what, p.String(), strings.Join(names, ", "))
}

func (k *checker) input() {
	in := &k.t.Input
	switch in.Format {
	case "", "auto":
		in.Format = "auto"
	case "jsonl", "json", "factgenie":
	default:
		k.c.add(in.Line, "input format %q is not one of jsonl, json, factgenie, auto", in.Format)
	}
	if in.ID == "" {
		k.c.add(in.Line, `input id is missing: say how records are identified, e.g. "{id}", "{$key}" or "r{$i:04}"`)
		return
	}
	in.id = k.format(in.Line, "input id", in.ID, "", "$key", "$i", "$n")
}

func (k *checker) rows() {
	r := &k.t.Rows
	if r.IDHeader == "" {
		r.IDHeader = DefaultIDHeader
	}
	if r.IDWidth == 0 {
		r.IDWidth = 16
	}
	switch r.Per {
	case PerRecord:
		if r.Path != "" || r.AnswerRows != 0 || r.Unit != "" || len(r.OrderBy) > 0 {
			k.c.add(r.Line, "rows: path, order_by, unit and answer_rows do not apply to per: record")
		}
	case PerElement:
		if r.Path == "" {
			k.c.add(r.Line, "rows: per: element needs the path of the list whose elements get a row each")
		} else {
			r.path = k.path(r.Line, "rows path", r.Path, "")
		}
		for _, o := range r.OrderBy {
			r.orderBy = append(r.orderBy, k.path(r.Line, "rows order_by", o, "@", ""))
		}
		if r.Unit == "" {
			r.Unit = DefaultUnit
		}
		r.unit = k.format(r.Line, "rows unit", r.Unit, "$id", "$i", "$n", "@", "")
		if r.AnswerRows != 0 {
			k.c.add(r.Line, "rows: answer_rows applies to per: block only")
		}
	case PerBlock:
		if r.AnswerRows < 1 || r.AnswerRows > 1000 {
			k.c.add(r.Line, "rows: per: block needs answer_rows between 1 and 1000")
		}
		if r.Path != "" || r.Unit != "" || len(r.OrderBy) > 0 {
			k.c.add(r.Line, "rows: path, order_by and unit do not apply to per: block")
		}
		if r.Spans == "" {
			r.Spans = DefaultSpans
		}
	case "":
		k.c.add(r.Line, "rows: per is missing (record, element or block)")
	default:
		k.c.add(r.Line, "rows: per %q is not one of record, element, block", r.Per)
	}
}

func (k *checker) anonymize() {
	seen := map[string]bool{}
	for i := range k.t.Anonymize {
		a := &k.t.Anonymize[i]
		a.field = k.path(a.Line, "anonymize field", a.Field, "", "@")
		if a.field.Root == "@" && k.t.Rows.Per != PerElement {
			k.c.add(a.Line, "anonymize field %q: @ needs rows per: element", a.Field)
		}
		if len(a.field.Segs) == 0 || a.field.Segs[len(a.field.Segs)-1].Kind != SegKey {
			k.c.add(a.Line, "anonymize field %q must end in a key", a.Field)
		}
		if !identRe.MatchString(a.As) {
			k.c.add(a.Line, "anonymize as %q must be a field name (letters, digits, _)", a.As)
		}
		if seen[a.As] {
			k.c.add(a.Line, "anonymize as %q is used twice", a.As)
		}
		seen[a.As] = true
		if len(a.Prefix) > 16 || strings.ContainsAny(a.Prefix, "{}\n") {
			k.c.add(a.Line, "anonymize prefix %q must be short plain text", a.Prefix)
		}
		switch a.Labels {
		case "":
			a.Labels = "letters"
		case "letters", "numbers":
		default:
			k.c.add(a.Line, "anonymize labels %q is not letters or numbers", a.Labels)
		}
	}
}

// revealing refuses ids that would show an anonymised value.
func (k *checker) revealing() {
	t := k.t
	for _, p := range t.Input.id.Paths() {
		if f, bad := k.reveals(p); bad {
			k.c.add(t.Input.Line, "input id %q would show %s, which is anonymised; use its label", t.Input.ID, f)
		}
	}
	for _, p := range t.Rows.unit.Paths() {
		if f, bad := k.reveals(p); bad {
			k.c.add(t.Rows.Line, "rows unit %q would show %s, which is anonymised; use its label", t.Rows.Unit, f)
		}
	}
}

// reveals reports the anonymised field a path would show, if any: the
// path leads to the field, to something inside it, or to a list or object
// that holds it.
func (k *checker) reveals(p Path) (string, bool) {
	pr, ok := k.recordPath(p)
	if !ok {
		return "", false
	}
	for _, a := range k.t.Anonymize {
		ar, ok := k.recordPath(a.field)
		if !ok {
			continue
		}
		n := min(len(pr), len(ar))
		match := true
		for i := range n {
			if !segsMayMeet(pr[i], ar[i]) {
				match = false
				break
			}
		}
		if match {
			return a.Field, true
		}
	}
	return "", false
}

// recordPath writes p as a path from the record: "@.x" becomes the rows'
// list path, [*], then x. Variables ($id, $i …) lead nowhere in the record.
func (k *checker) recordPath(p Path) ([]Seg, bool) {
	switch p.Root {
	case "":
		return p.Segs, true
	case "@":
		list := k.t.Rows.path
		if list.IsZero() {
			return nil, false
		}
		out := append(slices.Clone(list.Segs), Seg{Kind: SegAll})
		return append(out, p.Segs...), true
	}
	return nil, false
}

// segsMayMeet reports whether two path steps can select the same thing: the
// same key; the same index; [*] or a negative index against any index.
func segsMayMeet(a, b Seg) bool {
	if a.Kind == SegKey || b.Kind == SegKey {
		return a == b
	}
	if a.Kind == SegAll || b.Kind == SegAll || a.Index < 0 || b.Index < 0 {
		return true
	}
	return a.Index == b.Index
}

func (k *checker) context() {
	t := k.t
	roots := []string{"", "$id"}
	if t.Rows.Per == PerElement {
		roots = append(roots, "@")
	}
	names := map[string]bool{}
	if len(t.Context) == 0 {
		k.c.add(1, "context is missing: annotators need something to judge")
	}
	for i := range t.Context {
		cx := &t.Context[i]
		if !identRe.MatchString(cx.Name) {
			k.c.add(cx.Line, "context name %q must be letters, digits and _", cx.Name)
		}
		if names[cx.Name] {
			k.c.add(cx.Line, "context %q is declared twice", cx.Name)
		}
		names[cx.Name] = true
		if cx.Header == "" {
			cx.Header = cx.Name
		}
		if cx.Width == 0 {
			cx.Width = 50
		}
		if cx.Width < 1 || cx.Width > 255 {
			k.c.add(cx.Line, "context %q: width must be between 1 and 255", cx.Name)
		}
		if cx.Path == "" {
			k.c.add(cx.Line, "context %q: path is missing", cx.Name)
			continue
		}
		cx.path = k.path(cx.Line, fmt.Sprintf("context %q path", cx.Name), cx.Path, roots...)
		if f, bad := k.reveals(cx.path); bad {
			k.c.add(cx.Line, "context %q would show %s, which is anonymised; show its label instead", cx.Name, f)
		}
		if cx.FirstRowOnly && t.Rows.Per != PerElement {
			k.c.add(cx.Line, "context %q: first_row_only applies to rows per: element", cx.Name)
		}
		switch cx.Show {
		case "":
			cx.Show = ShowHead
		case ShowHead, ShowTail:
		default:
			k.c.add(cx.Line, "context %q: show %q is not head or tail (the part of a long text its cell shows)", cx.Name, cx.Show)
		}
		if j := cx.Join; j != nil {
			if j.Item == "" {
				j.Item = "{$}"
			}
			j.item = k.format(j.Line, fmt.Sprintf("context %q join item", cx.Name), j.Item,
				"", "$", "$i", "$n", "$i1", "$n1", "$i2", "$n2")
			if j.Separator == nil {
				nl := "\n"
				j.Separator = &nl
			}
			if j.GroupSeparator == nil {
				j.GroupSeparator = j.Separator
			}
		}
	}
}

func (k *checker) questions() {
	t := k.t
	if len(t.Questions) == 0 {
		k.c.add(1, "questions are missing: annotators need something to answer")
	}
	names := map[string]*Question{}
	for i := range t.Questions {
		q := &t.Questions[i]
		if !identRe.MatchString(q.Name) {
			k.c.add(q.Line, "question name %q must be letters, digits and _ (it is a JSON key)", q.Name)
		}
		if names[q.Name] != nil {
			k.c.add(q.Line, "question %q is declared twice", q.Name)
			if k.dup == nil {
				k.dup = map[string]bool{}
			}
			k.dup[q.Name] = true
		}
		names[q.Name] = q
		if q.Header == "" {
			q.Header = q.Name
		}
		switch q.Scope {
		case "":
			q.Scope = "row"
		case "row":
		case "block":
			if t.Rows.Per != PerBlock {
				k.c.add(q.Line, "question %q: scope block needs rows per: block", q.Name)
			}
		default:
			k.c.add(q.Line, "question %q: scope %q is not row or block", q.Name, q.Scope)
		}
		k.question(q)
	}
	for i := range t.Questions {
		q := &t.Questions[i]
		if q.Before == "" {
			continue
		}
		b := names[q.Before]
		switch {
		case q.Type != TypeSpan:
		case b == nil:
			k.c.add(q.Line, "question %q: before names no question %q", q.Name, q.Before)
		case b.Type != TypeSpan || b.Field != q.Field:
			k.c.add(q.Line, "question %q: before must name a span question on the same field (%q)", q.Name, q.Field)
		case b == q:
			k.c.add(q.Line, "question %q: before names itself", q.Name)
		}
	}
	if r := &t.Rows; r.Per == PerBlock {
		if r.Label == "" {
			for _, q := range t.Questions {
				if q.Type == TypeChoice && q.Scope == "row" {
					r.Label = q.Name
					break
				}
			}
		}
		if q := names[r.Label]; r.Label != "" && (q == nil || q.Type != TypeChoice || q.Scope != "row") {
			k.c.add(r.Line, "rows label %q must name a choice question asked on every answer row", r.Label)
		}
	} else if r.Label != "" || r.Spans != "" {
		k.c.add(r.Line, "rows: label and spans apply to per: block only")
	}
}

func (k *checker) question(q *Question) {
	t := k.t
	notFor := func(field string, set bool) {
		if set {
			k.c.add(q.Line, "question %q: %s does not apply to type %s", q.Name, field, q.Type)
		}
	}
	if !slices.Contains([]string{TypeChoice, TypeMulti, TypeScale, TypeBool, TypeText, TypeSpan, TypeEvidence}, q.Type) {
		if q.Type == "" {
			k.c.add(q.Line, "question %q: type is missing (choice, multi, scale, bool, text, span or evidence)", q.Name)
		} else {
			k.c.add(q.Line, "question %q: type %q is not one of choice, multi, scale, bool, text, span, evidence", q.Name, q.Type)
		}
		return
	}
	hasOptions := q.Type == TypeChoice || q.Type == TypeMulti
	notFor("options", !hasOptions && len(q.Options) > 0)
	notFor("render", q.Type != TypeMulti && q.Render != "")
	notFor("min", q.Type != TypeScale && q.Min != nil)
	notFor("max", q.Type != TypeScale && q.Max != nil)
	notFor("unanswered", q.Type != TypeScale && q.Unanswered != nil)
	notFor("field", q.Type != TypeSpan && q.Field != "")
	notFor("occurrence", q.Type != TypeSpan && q.Occurrence)
	notFor("before", q.Type != TypeSpan && q.Before != "")
	notFor("passages", q.Type != TypeEvidence && q.Passages != "")
	notFor("passage_header", q.Type != TypeEvidence && q.PassageHeader != "")
	notFor("sentences_header", q.Type != TypeEvidence && q.SentencesHeader != "")
	if q.Adjudicate != nil && t.Rows.Per == PerBlock && q.Scope != "block" {
		k.c.add(q.Line, "question %q: adjudicate is for questions asked once per unit; a block's answer rows are adjudicated as its spans", q.Name)
	}
	if q.Width == 0 {
		switch q.Type {
		case TypeText, TypeSpan:
			q.Width = 40
		case TypeChoice:
			q.Width = 22
		default:
			q.Width = 14
		}
	}
	switch q.Type {
	case TypeChoice, TypeMulti:
		k.options(q)
		switch q.Render {
		case "":
			if q.Type == TypeMulti {
				q.Render = "checkboxes"
			}
		case "checkboxes":
		case "list":
			for _, o := range q.Options {
				if strings.Contains(o.Code, ",") {
					k.c.add(o.Line, "question %q: code %q has a comma, which render: list uses to separate codes", q.Name, o.Code)
				}
			}
		default:
			k.c.add(q.Line, "question %q: render %q is not checkboxes or list", q.Name, q.Render)
		}
	case TypeScale:
		switch {
		case q.Min == nil || q.Max == nil:
			k.c.add(q.Line, "question %q: a scale needs min and max", q.Name)
		case *q.Min >= *q.Max:
			k.c.add(q.Line, "question %q: min %d must be below max %d", q.Name, *q.Min, *q.Max)
		case *q.Max-*q.Min > 10000:
			k.c.add(q.Line, "question %q: a scale of more than 10000 steps is not a scale", q.Name)
		case q.Unanswered != nil && *q.Unanswered >= *q.Min && *q.Unanswered <= *q.Max:
			k.c.add(q.Line, "question %q: unanswered %d lies inside the scale %d–%d, so it could not be told from an answer", q.Name, *q.Unanswered, *q.Min, *q.Max)
		}
	case TypeBool, TypeText:
	case TypeSpan:
		if q.Field == "" {
			k.c.add(q.Line, "question %q: a span needs field, the context column it is copied from", q.Name)
		} else if t.ContextByName(q.Field) == nil {
			k.c.add(q.Line, "question %q: field %q names no context column", q.Name, q.Field)
		} else if cx := t.ContextByName(q.Field); cx.Join != nil {
			k.c.add(q.Line, "question %q: field %q is a joined list; spans need a single text", q.Name, q.Field)
		}
	case TypeEvidence:
		if q.Passages == "" {
			k.c.add(q.Line, "question %q: evidence needs passages, the path of the passages it points into", q.Name)
		} else {
			q.passages = k.path(q.Line, fmt.Sprintf("question %q passages", q.Name), q.Passages, "")
		}
		if q.PassageHeader == "" {
			q.PassageHeader = q.Header + ": passage"
		}
		if q.SentencesHeader == "" {
			q.SentencesHeader = q.Header + ": sentences"
		}
	}
}

func (k *checker) options(q *Question) {
	if len(q.Options) == 0 {
		k.c.add(q.Line, "question %q: a %s question needs options", q.Name, q.Type)
		return
	}
	codes, labels := map[string]bool{}, map[string]bool{}
	for i := range q.Options {
		o := &q.Options[i]
		if strings.TrimSpace(o.Code) == "" {
			k.c.add(o.Line, "question %q: an option has no code", q.Name)
		}
		if o.Code != strings.TrimSpace(o.Code) {
			k.c.add(o.Line, "question %q: code %q has spaces around it", q.Name, o.Code)
		}
		if o.Label == "" {
			o.Label = o.Code
		}
		if codes[o.Code] {
			k.c.add(o.Line, "question %q: code %q is used twice", q.Name, o.Code)
		}
		if labels[strings.ToLower(o.Label)] {
			k.c.add(o.Line, "question %q: label %q is used twice (labels must differ in more than case)", q.Name, o.Label)
		}
		codes[o.Code], labels[strings.ToLower(o.Label)] = true, true
		if q.Type == TypeMulti && o.Header == "" {
			o.Header = q.Header + ": " + o.Label
		}
		if q.Type != TypeMulti && o.Header != "" {
			k.c.add(o.Line, "question %q: option header applies to multi questions only", q.Name)
		}
	}
}

func (k *checker) rules() {
	for i := range k.t.Rules {
		r := &k.t.Rules[i]
		forms := 0
		if r.Then != nil {
			forms++
		}
		if r.Require != "" {
			forms++
		}
		if r.Allow != "" {
			forms++
		}
		if r.Exclusive != "" {
			forms++
		}
		if forms != 1 {
			k.c.add(r.Line, "rule: write exactly one of when/then, require/when, allow/only_when, question/exclusive")
			continue
		}
		yes := true
		switch {
		case r.Then != nil:
			if r.When == nil {
				k.c.add(r.Line, "rule: then needs a when")
				continue
			}
		case r.Require != "":
			if r.When == nil {
				k.c.add(r.Line, "rule: require needs a when")
				continue
			}
			r.Then = &Cond{Question: r.Require, Answered: &yes, Line: r.Line}
		case r.Allow != "":
			if r.OnlyWhen == nil {
				k.c.add(r.Line, "rule: allow needs an only_when")
				continue
			}
			if r.When != nil {
				k.c.add(r.Line, "rule: allow takes only_when, not when")
				continue
			}
			r.When, r.Then = &Cond{Question: r.Allow, Answered: &yes, Line: r.Line}, r.OnlyWhen
		case r.Exclusive != "":
			if r.Question == "" {
				k.c.add(r.Line, "rule: exclusive needs a question")
				continue
			}
			if r.When != nil {
				k.c.add(r.Line, "rule: exclusive takes no when")
				continue
			}
			r.When = &Cond{Question: r.Question, AnyOf: []string{r.Exclusive}, Line: r.Line}
			r.Then = &Cond{Question: r.Question, Only: []string{r.Exclusive}, Line: r.Line}
		}
		if r.OnlyWhen != nil && r.Allow == "" {
			k.c.add(r.Line, "rule: only_when goes with allow")
		}
		if r.Question != "" && r.Exclusive == "" {
			k.c.add(r.Line, "rule: question goes with exclusive")
		}
		switch r.Severity {
		case "":
			r.Severity = SeverityError
		case SeverityError, SeverityWarning:
		default:
			k.c.add(r.Line, "rule: severity %q is not error or warning", r.Severity)
		}
		k.cond(r.When, "")
		k.cond(r.Then, "")
		if r.Message == "" {
			r.Message = fmt.Sprintf("when %s, %s", r.When.Describe(k.t), r.Then.Describe(k.t))
		}
	}
}

// cond checks a condition. scope, when set, restricts it to questions asked
// in that scope (export filters run on the answers of one span).
func (k *checker) cond(c *Cond, scope string) {
	if c == nil {
		return
	}
	tests := 0
	// at_least and at_most together are one test: a range.
	for _, set := range []bool{c.Answered != nil, c.AnyOf != nil, c.AllOf != nil, c.NoneOf != nil, c.Only != nil, c.AtLeast != nil || c.AtMost != nil} {
		if set {
			tests++
		}
	}
	groups := 0
	for _, set := range []bool{c.All != nil, c.Any != nil, c.Not != nil} {
		if set {
			groups++
		}
	}
	switch {
	case c.Question != "" && (tests != 1 || groups != 0):
		k.c.add(c.Line, "condition on %q needs exactly one of answered, any_of, all_of, none_of, only, at_least/at_most", c.Question)
		return
	case c.Question == "" && (tests != 0 || groups != 1):
		k.c.add(c.Line, "condition needs a question with one test, or exactly one of all, any, not")
		return
	}
	for _, s := range c.All {
		k.cond(s, scope)
	}
	for _, s := range c.Any {
		k.cond(s, scope)
	}
	k.cond(c.Not, scope)
	if c.Question == "" {
		return
	}
	q := k.t.QuestionByName(c.Question)
	if q == nil {
		k.c.add(c.Line, "condition names no question %q", c.Question)
		return
	}
	if scope != "" && q.Scope != scope {
		k.c.add(c.Line, "condition on %q: only questions asked on each answer row can be used here", c.Question)
	}
	if c.AtLeast != nil || c.AtMost != nil {
		k.rangeCond(c, q)
		return
	}
	codes := slices.Concat(c.AnyOf, c.AllOf, c.NoneOf, c.Only)
	if len(codes) == 0 {
		return
	}
	switch q.Type {
	case TypeChoice, TypeMulti:
		for _, code := range codes {
			if q.Option(code) == nil {
				k.c.add(c.Line, "condition on %q: no option with code %q", q.Name, code)
			}
		}
		if c.AllOf != nil && q.Type != TypeMulti {
			k.c.add(c.Line, "condition on %q: all_of applies to multi questions", q.Name)
		}
	case TypeBool:
		for _, code := range codes {
			if code != "true" && code != "false" {
				k.c.add(c.Line, "condition on %q: a bool is true or false, not %q", q.Name, code)
			}
		}
	case TypeScale:
		k.c.add(c.Line, "condition on %q: a scale question can only be tested with answered, at_least and at_most", q.Name)
	default:
		k.c.add(c.Line, "condition on %q: a %s question can only be tested with answered", q.Name, q.Type)
	}
}

// rangeCond checks at_least and at_most: on a scale, a range that
// some answer can fall in.
func (k *checker) rangeCond(c *Cond, q *Question) {
	if q.Type != TypeScale {
		k.c.add(c.Line, "condition on %q: at_least and at_most apply to scale questions, not %s", q.Name, q.Type)
		return
	}
	if q.Min == nil || q.Max == nil {
		return // reported with the question
	}
	lo, hi := *q.Min, *q.Max
	if c.AtLeast != nil {
		lo = max(lo, *c.AtLeast)
	}
	if c.AtMost != nil {
		hi = min(hi, *c.AtMost)
	}
	if lo > hi {
		k.c.add(c.Line, "condition on %q: no answer on the scale %d–%d is %s", q.Name, *q.Min, *q.Max, c.rangeWords())
	}
}

func (k *checker) annotator() {
	a := &k.t.Annotator
	if a.Header == "" {
		a.Header = DefaultAnnotatorHeader
	}
	if a.Width == 0 {
		a.Width = 14
	}
	switch a.Position {
	case "":
		a.Position = "right"
	case "right", "left":
	default:
		k.c.add(a.Line, "annotator position %q is not right or left", a.Position)
	}
	switch a.Claim {
	case "":
		a.Claim = ClaimRow
		if k.t.Rows.Per == PerBlock {
			a.Claim = ClaimInstance
		}
	case ClaimRow:
		if k.t.Rows.Per == PerBlock {
			k.c.add(a.Line, "annotator claim row does not fit per: block, whose rows form one unit; use instance")
		}
	case ClaimInstance:
	default:
		k.c.add(a.Line, "annotator claim %q is not row or instance", a.Claim)
	}
}

func (k *checker) bands() {
	b := &k.t.Bands
	if len(b.Key) == 0 {
		b.Key = []string{"{$id}"}
	}
	roots := []string{"$id", ""}
	if k.t.Rows.Per == PerElement {
		roots = append(roots, "@", "$i", "$n")
	}
	for _, s := range b.Key {
		f := k.format(b.Line, "bands key", s, roots...)
		for _, p := range f.Paths() {
			if name, bad := k.reveals(p); bad {
				k.c.add(b.Line, "bands key %q reads %s, which is anonymised", s, name)
			}
		}
		b.key = append(b.key, f)
	}
	switch b.Columns {
	case "":
		b.Columns = "row"
	case "row", "id":
	default:
		k.c.add(b.Line, "bands columns %q is not row or id", b.Columns)
	}
	if len(b.Palette) == 0 {
		b.Palette = DefaultPalette
	}
	if len(b.Palette) < 2 {
		k.c.add(b.Line, "bands palette needs at least two colours, or neighbouring groups would look the same")
	}
	for _, p := range b.Palette {
		if !colorRe.MatchString(p) {
			k.c.add(b.Line, "bands palette colour %q is not RRGGBB hex", p)
		}
	}
}

// groups checks the groups results compare. Their formats may read
// every field of the record, anonymised ones included: a group's value
// goes to the coordinator, never into a workbook.
func (k *checker) groups() {
	t := k.t
	roots := []string{"", "$id", "$key", "$i", "$n"}
	if t.Rows.Per == PerElement {
		roots = append(roots, "@")
	}
	names := map[string]bool{}
	for i := range t.Groups {
		g := &t.Groups[i]
		switch {
		case g.Name == "":
			k.c.add(g.Line, "group: name is missing")
		case !groupRe.MatchString(g.Name):
			k.c.add(g.Line, "group name %q must be letters, digits, _ or -", g.Name)
		case names[g.Name]:
			k.c.add(g.Line, "group %q is declared twice", g.Name)
		case g.Name == CandidateGroup && t.Shuffle != nil:
			k.c.add(g.Line, "group %q is reserved: a template that shuffles candidates has it by itself, the candidates' codes; choose another name", g.Name)
		}
		names[g.Name] = true
		if g.From == "" {
			k.c.add(g.Line, `group %q: from is missing: say what names each unit's group, e.g. "{system}", or a literal such as "all"`, g.Name)
		} else {
			g.from = k.format(g.Line, fmt.Sprintf("group %q from", g.Name), g.From, roots...)
		}
		g.pattern = k.groupPattern(g, "pattern", g.Pattern)
		if g.PairBy != "" {
			g.pairBy = k.format(g.Line, fmt.Sprintf("group %q pair_by", g.Name), g.PairBy, roots...)
		} else if g.PairPattern != "" {
			k.c.add(g.Line, "group %q: pair_pattern goes with pair_by", g.Name)
		}
		g.pairPattern = k.groupPattern(g, "pair_pattern", g.PairPattern)
	}
}

// groupPattern compiles a group's pattern (key names which), which must
// have a capture group: the first one is the value.
func (k *checker) groupPattern(g *Group, key, s string) *regexp.Regexp {
	if s == "" {
		return nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		k.c.add(g.Line, "group %q %s %q: %v", g.Name, key, s, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	if re.NumSubexp() < 1 {
		k.c.add(g.Line, "group %q %s %q has no capture group: its first (...) gives the value", g.Name, key, s)
		return nil
	}
	return re
}

func (k *checker) export() {
	e := k.t.Export
	if e == nil {
		return
	}
	switch e.Format {
	case ExportJSONL, ExportJSONArray:
		if e.Key != nil {
			k.c.add(e.Line, "export key applies to format json-object only")
		}
	case ExportJSONObject:
		if e.Key == nil {
			k.c.add(e.Line, "export format json-object needs key, the expression giving each record's key")
		} else {
			k.expr(e.Key, false)
		}
	default:
		k.c.add(e.Line, "export format %q is not one of jsonl, json-array, json-object", e.Format)
	}
	switch e.From {
	case "", "input":
	default:
		k.c.add(e.Line, "export from %q is not input (or empty)", e.From)
	}
	switch e.Include {
	case "":
		e.Include = "answered"
	case "answered", "all":
	default:
		k.c.add(e.Line, "export include %q is not answered or all", e.Include)
	}
	if len(e.Fields) == 0 {
		k.c.add(e.Line, "export fields are missing")
	}
	k.fields(e.Fields, false)
}

func (k *checker) fields(fs Fields, inSpan bool) {
	for _, f := range fs {
		k.expr(f.Expr, inSpan)
	}
}

func (k *checker) expr(e *Expr, inSpan bool) {
	if e == nil {
		return
	}
	sources := 0
	for _, set := range []bool{e.IsConst, e.Input != "", e.Element != "", e.Value != "", e.Meta != "",
		e.Object != nil, e.Each != "", e.JSON != nil, e.Cases != nil} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		k.c.add(e.Line, "export value needs exactly one of input, element, value, meta, object, each, json, cases (or a constant)")
		return
	}
	t := k.t
	switch {
	case e.Input != "":
		e.input = k.path(e.Line, "export input", e.Input, "", "$key", "$id")
	case e.Element != "":
		if t.Rows.Per != PerElement {
			k.c.add(e.Line, "export element needs rows per: element")
		}
		e.element = k.path(e.Line, "export element", "@."+strings.TrimPrefix(strings.TrimPrefix(e.Element, "@"), "."), "@")
	case e.Value != "":
		e.value = k.path(e.Line, "export value", e.Value, "")
		if len(e.value.Segs) > 0 {
			q := t.QuestionByName(e.value.Segs[0].Key)
			switch {
			case q == nil:
				k.c.add(e.Line, "export value %q names no question", e.Value)
			case inSpan && q.Scope != "row":
				k.c.add(e.Line, "export value %q: inside each, only questions asked on each answer row", e.Value)
			case !inSpan && t.Rows.Per == PerBlock && q.Scope == "row":
				k.c.add(e.Line, "export value %q is asked per answer row; read it inside each: spans", e.Value)
			}
		}
	case e.Meta != "":
		if !slices.Contains(metaFields, e.Meta) {
			k.c.add(e.Line, "export meta %q is not one of %s", e.Meta, strings.Join(metaFields, ", "))
		}
	case e.Object != nil:
		k.fields(e.Object, inSpan)
	case e.Each != "":
		if e.Each != "spans" {
			k.c.add(e.Line, "export each %q: only spans can be iterated", e.Each)
		}
		if t.Rows.Per != PerBlock {
			k.c.add(e.Line, "export each: spans needs rows per: block")
		}
		if e.Item == nil {
			k.c.add(e.Line, "export each needs item, what each span becomes")
		}
		k.cond(e.Where, "row")
		k.expr(e.Item, true)
	case e.JSON != nil:
		k.expr(e.JSON, inSpan)
	case e.Cases != nil:
		for _, c := range e.Cases {
			if c.When == nil || c.Then == nil {
				k.c.add(c.Line, "export case needs when and then")
				continue
			}
			scope := ""
			if inSpan {
				scope = "row"
			}
			k.cond(c.When, scope)
			k.expr(c.Then, inSpan)
		}
	}
	if e.Each == "" && (e.Where != nil || e.Item != nil) {
		k.c.add(e.Line, "export where and item go with each")
	}
	k.expr(e.Default, inSpan)
	switch e.As {
	case "", "int", "ints", "string", "strings":
	default:
		k.c.add(e.Line, "export as %q is not int, ints, string or strings", e.As)
	}
}

// headers checks that every column header is unique: pull finds columns by
// their header text.
func (k *checker) headers() {
	seen := map[string]int{} // header -> line of the first column with it
	for _, c := range k.t.Columns() {
		if c.Question != nil && k.dup[c.Question.Name] {
			continue
		}
		// Pull matches headers with case and spacing evened out; so must
		// this check.
		h := strings.ToLower(strings.Join(strings.Fields(c.Header), " "))
		if h == "" {
			k.c.add(c.line, "a column has an empty header")
			continue
		}
		if first, dup := seen[h]; dup {
			// A default column (the unit, an annotator column not in the
			// file) has no line of its own; point at the other one.
			line := c.line
			if line == 0 {
				line = first
			}
			k.c.add(line, "two columns have the header %q; pull finds columns by header, so headers must differ", c.Header)
			continue
		}
		seen[h] = c.line
	}
}

// ContextByName returns the context column called name, or nil.
func (t *Template) ContextByName(name string) *Context {
	for i := range t.Context {
		if t.Context[i].Name == name {
			return &t.Context[i]
		}
	}
	return nil
}

// QuestionByName returns the question called name, or nil.
func (t *Template) QuestionByName(name string) *Question {
	for i := range t.Questions {
		if t.Questions[i].Name == name {
			return &t.Questions[i]
		}
	}
	return nil
}

// Option returns the option with the given code, or nil.
func (q *Question) Option(code string) *Option {
	for i := range q.Options {
		if q.Options[i].Code == code {
			return &q.Options[i]
		}
	}
	return nil
}

// shuffle checks that the candidates are alike, so that any of them can
// stand in any place: as many context columns and questions each, the
// questions of one place of the same kind, every choice offering every
// candidate. Spans and evidence cannot point into a shuffled column: their
// offsets would be in another candidate's text.
func (k *checker) shuffle() {
	sh := k.t.Shuffle
	if sh == nil {
		return
	}
	if len(sh.Candidates) < 2 {
		k.c.add(sh.Line, "shuffle needs at least two candidates")
		return
	}
	codes := map[string]bool{}
	owned := map[string]string{} // column or question -> candidate
	first := sh.Candidates[0]
	for _, cd := range sh.Candidates {
		switch {
		case cd.Code == "":
			k.c.add(cd.Line, "shuffle candidate: code is missing")
		case codes[cd.Code]:
			k.c.add(cd.Line, "shuffle candidate %q is given twice", cd.Code)
		}
		codes[cd.Code] = true
		if len(cd.Context) == 0 {
			k.c.add(cd.Line, "shuffle candidate %q: context names no column (what is shown of it?)", cd.Code)
		}
		if len(cd.Context) != len(first.Context) || len(cd.Questions) != len(first.Questions) {
			k.c.add(cd.Line, "shuffle candidate %q has %d context columns and %d questions, but %q has %d and %d: every candidate needs the same", cd.Code, len(cd.Context), len(cd.Questions), first.Code, len(first.Context), len(first.Questions))
			continue
		}
		for _, name := range cd.Context {
			if k.t.ContextByName(name) == nil {
				k.c.add(cd.Line, "shuffle candidate %q: no context column %q", cd.Code, name)
			}
			if other, dup := owned["context:"+name]; dup {
				k.c.add(cd.Line, "shuffle: context column %q belongs to candidates %q and %q", name, other, cd.Code)
			}
			owned["context:"+name] = cd.Code
		}
		for j, name := range cd.Questions {
			q := k.t.QuestionByName(name)
			if q == nil {
				k.c.add(cd.Line, "shuffle candidate %q: no question %q", cd.Code, name)
				continue
			}
			if other, dup := owned["q:"+name]; dup {
				k.c.add(cd.Line, "shuffle: question %q belongs to candidates %q and %q", name, other, cd.Code)
			}
			owned["q:"+name] = cd.Code
			if p := k.t.QuestionByName(first.Questions[j]); p != nil && (p.Type != q.Type || !sameInt(p.Min, q.Min) || !sameInt(p.Max, q.Max)) {
				k.c.add(cd.Line, "shuffle candidate %q: question %q is not of the same kind as %q of %q", cd.Code, name, p.Name, first.Code)
			}
		}
	}
	for _, name := range sh.Choices {
		q := k.t.QuestionByName(name)
		if q == nil {
			k.c.add(sh.Line, "shuffle choices: no question %q", name)
			continue
		}
		if q.Type != TypeChoice && q.Type != TypeMulti {
			k.c.add(sh.Line, "shuffle choices: question %q is a %s, not a choice or multi", name, q.Type)
			continue
		}
		for code := range codes {
			if q.Option(code) == nil {
				k.c.add(sh.Line, "shuffle choices: question %q has no option %q for candidate %q", name, code, code)
			}
		}
	}
	for _, q := range k.t.Questions {
		if (q.Type == TypeSpan || q.Type == TypeEvidence) && owned["context:"+q.Field] != "" {
			k.c.add(sh.Line, "shuffle: question %q points into the shuffled column %q; spans and evidence cannot follow a shuffle", q.Name, q.Field)
		}
	}
}

// ShuffleSlot returns, for a context column or question name, the place
// (0-based) its candidate stands in and its position within the
// candidate, or ok false when it is not shuffled.
func (t *Template) ShuffleSlot(kind, name string) (slot, pos int, ok bool) {
	if t.Shuffle == nil {
		return 0, 0, false
	}
	for i, cd := range t.Shuffle.Candidates {
		list := cd.Context
		if kind == "question" {
			list = cd.Questions
		}
		if j := slices.Index(list, name); j >= 0 {
			return i, j, true
		}
	}
	return 0, 0, false
}

func sameInt(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

package templates

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Live checks: while annotators work, the sheet itself points at what
// pull would report, in a Check column computed by a formula and in
// conditional formats on the cells concerned. The formulas are compiled
// here from the same rules pull applies (required questions of rows with
// answers, the annotator ID, the template's rules, spans that are not in
// their field), into one formula text that every backend writes as is:
// functions that Excel, LibreOffice and Google Sheets all know, English
// names, commas between arguments.
//
// The live checks help; they decide nothing. Pull never reads them, since
// a returned workbook may have lost its formulas, and checks every cell
// again. Where a formula cannot follow pull, the live check says less
// than pull, not more: spans are matched exactly (pull also accepts a
// span whose spaces, quotes or dashes differ, with a warning), and
// occurrences are counted without overlaps.

// CheckboxTrue and CheckboxFalse are the spellings of a ticked and an
// unticked checkbox that pull accepts (case aside), besides numbers
// equal to 1 and 0.
var (
	CheckboxTrue  = []string{"true", "1", "x", "yes", "y", "✓", "✔", "☑", "checked", "wahr", "vrai"}
	CheckboxFalse = []string{"false", "0", "no", "n", "☐", "unchecked", "falsch", "faux"}
)

// MaxFormula is the longest formula the live checks write: Excel's limit
// of 8,192 characters, with room to spare.
const MaxFormula = 8000

// maxLiteral is the most UTF-16 units of a string constant in an Excel
// formula.
const maxLiteral = 255

// CheckRefs tell the compiler where the cells of a checked row are, as
// references in the formula's terms: "F7", "$F$5", or an expression that
// finds the cell, such as INDEX(…).
type CheckRefs struct {
	// Cell is the cell of a column (by ColumnSpec key) that the checked
	// row reads: the row's own, or, for a question asked once per block
	// and for context shown once per record, the cell it is in.
	Cell func(key string) string
	// Block is the range of a column's cells over the checked row's block
	// (rows per: block).
	Block func(key string) string
}

// LiveCheck is one check the sheet makes, compiled to formulas over
// CheckRefs.
type LiveCheck struct {
	// Name says what is checked: "required:NAME", "annotator",
	// "rule:N" (the rule's index), "span:NAME", "occurrence:NAME",
	// "before:NAME".
	Name     string
	Severity string
	// Block checks are made once per block, on its first row (questions
	// asked once per block, a block's annotator); the others on every
	// row.
	Block bool
	// Keys are the columns the check is about: those to highlight when
	// it fails.
	Keys []string
	// Gate is true when the check applies at all: the row (or block)
	// has answers. "" when it always applies.
	Gate string
	// Fails is true when the check fails, where it applies.
	Fails string
	// Text is a formula of the words the Check column shows when the
	// check fails: a string constant, or one with counts in it.
	Text string
}

// Formula is true when the check applies and fails: the formula of its
// conditional format.
func (c LiveCheck) Formula() string {
	if c.Gate == "" {
		return c.Fails
	}
	return and(c.Gate, c.Fails)
}

// LiveChecks compiles the template's checks, in the order the Check
// column lists them: required answers, the annotator ID, the rules, the
// spans. A check whose formula would be too long (MaxFormula) is left
// out: it is not checked live, only by pull.
func (t *Template) LiveChecks(r CheckRefs) []LiveCheck {
	c := &compiler{t: t, r: r, blocks: t.Rows.Per == PerBlock}
	var out []LiveCheck
	add := func(lc LiveCheck) {
		if len(lc.Formula())+len(lc.Text) <= MaxFormula/2 {
			out = append(out, lc)
		}
	}
	for i := range t.Questions {
		q := &t.Questions[i]
		if !q.Required {
			continue
		}
		block := c.blocks && q.Scope == "block"
		add(LiveCheck{Name: "required:" + q.Name, Severity: SeverityWarning, Block: block, Keys: c.keys(q),
			Gate: c.started(block), Fails: c.missing(q), Text: literal(q.Header + " missing")})
	}
	add(c.annotator())
	for i := range t.Rules {
		rule := &t.Rules[i]
		block := c.blocks && !c.namesRowQuestion(rule)
		fails := and(c.cond(rule.When), not(c.cond(rule.Then)))
		text := rule.Check
		if text == "" {
			text = rule.Message
		}
		var keys []string
		if q := t.QuestionByName(firstQuestionOf(rule.Then, rule.When)); q != nil {
			keys = c.keys(q)
		}
		add(LiveCheck{Name: "rule:" + strconv.Itoa(i), Severity: rule.Severity, Block: block, Keys: keys,
			Gate: c.started(block), Fails: fails, Text: literal(text)})
	}
	for i := range t.Questions {
		if q := &t.Questions[i]; q.Type == TypeSpan {
			for _, lc := range c.span(q) {
				add(lc)
			}
		}
	}
	return out
}

// CheckText is the formula of a Check cell: the words of every check
// that fails, separated by "; ", or "" when none does. It lists as many
// of checks as fit in MaxFormula.
func CheckText(checks []LiveCheck) string {
	var b strings.Builder
	b.WriteString("IFERROR(MID(")
	n := 0
	for i := 0; i < len(checks); {
		// Checks with one gate share it.
		j := i
		for j < len(checks) && checks[j].Gate == checks[i].Gate {
			j++
		}
		var parts []string
		for _, lc := range checks[i:j] {
			parts = append(parts, fmt.Sprintf("IF(%s,%s,\"\")", lc.Fails, concat(literal("; "), lc.Text)))
		}
		part := strings.Join(parts, "&")
		if g := checks[i].Gate; g != "" {
			part = fmt.Sprintf("IF(%s,%s,\"\")", g, part)
		}
		if b.Len()+len(part)+64 > MaxFormula {
			break
		}
		if n > 0 {
			b.WriteByte('&')
		}
		b.WriteString(part)
		n++
		i = j
	}
	if n == 0 {
		return `""`
	}
	b.WriteString(`,3,1000),"a cell shows an error")`)
	return b.String()
}

type compiler struct {
	t      *Template
	r      CheckRefs
	blocks bool
}

// keys are the columns of a question.
func (c *compiler) keys(q *Question) []string {
	base := "q:" + q.Name
	switch {
	case q.Type == TypeMulti && q.Render == "checkboxes":
		var out []string
		for _, o := range q.Options {
			out = append(out, base+"="+o.Code)
		}
		return out
	case q.Type == TypeEvidence:
		return []string{base + "#" + PartPassage, base + "#" + PartSentences}
	}
	return []string{base}
}

// filled is true when a cell holds anything but spaces; for a scale's
// cell, anything but its "not yet answered" value, as pull counts it.
func (c *compiler) filled(key string, q *Question) string {
	ref := c.r.Cell(key)
	f := hasText(ref)
	if q != nil && q.Type == TypeScale && q.Unanswered != nil && !strings.Contains(key, "#") {
		f = and(f, fmt.Sprintf("NOT(IFERROR(VALUE(TRIM(%s))=%d,FALSE))", ref, *q.Unanswered))
	}
	return f
}

// started is true when the checked row (or, for block checks, its
// block) has an answer: pull checks required answers and rules of such
// rows only.
func (c *compiler) started(block bool) string {
	var parts, plain []string
	for i := range c.t.Questions {
		q := &c.t.Questions[i]
		if c.blocks && !block && q.Scope == "block" {
			continue // a row of a block: its own answers
		}
		for _, key := range c.columnKeys(q) {
			if !block {
				if f := c.filled(key, q); f == hasText(c.r.Cell(key)) {
					plain = append(plain, c.r.Cell(key))
				} else {
					parts = append(parts, f)
				}
				continue
			}
			rng := c.r.Block(key)
			if q.Type == TypeScale && q.Unanswered != nil && !strings.Contains(key, "#") {
				parts = append(parts, fmt.Sprintf("SUMPRODUCT((LEN(TRIM(%s))>0)*(TRIM(%s)<>\"%d\"))>0", rng, rng, *q.Unanswered))
			} else {
				parts = append(parts, anyText(rng))
			}
		}
	}
	if len(plain) > 0 {
		// Cells that any text fills are tested at once: their text
		// joined is not blank.
		parts = append([]string{hasText(strings.Join(plain, "&"))}, parts...)
	}
	return or(parts...)
}

// columnKeys are every column of a question, parts included.
func (c *compiler) columnKeys(q *Question) []string {
	keys := c.keys(q)
	if q.Type == TypeSpan && q.Occurrence {
		keys = append(keys, "q:"+q.Name+"#"+PartOccurrence)
	}
	return keys
}

// answered is true when a question has an answer, readable or not, as
// pull's rules see it.
func (c *compiler) answered(q *Question) string {
	var parts []string
	for _, key := range c.keys(q) {
		parts = append(parts, c.filled(key, q))
	}
	return or(parts...)
}

// missing is true when a required question is unanswered: for a multi
// question, when no code is chosen.
func (c *compiler) missing(q *Question) string {
	if q.Type == TypeMulti && q.Render == "checkboxes" {
		var ticks []string
		for _, o := range q.Options {
			ticks = append(ticks, c.has(q, o.Code))
		}
		return not(or(ticks...))
	}
	return not(c.answered(q))
}

// has is true when a question's answer is, or includes, a code.
func (c *compiler) has(q *Question, code string) string {
	switch q.Type {
	case TypeChoice:
		ref := "TRIM(" + c.r.Cell("q:"+q.Name) + ")"
		parts := []string{ref + "=" + literal(code)}
		if o := q.Option(code); o != nil && o.Label != code {
			parts = append(parts, ref+"="+literal(o.Label))
		}
		return or(parts...)
	case TypeMulti:
		if q.Render == "checkboxes" {
			return ticked(c.r.Cell("q:" + q.Name + "=" + code))
		}
		// One cell of codes, separated by commas or semicolons.
		ref := c.r.Cell("q:" + q.Name)
		list := fmt.Sprintf(`","&UPPER(SUBSTITUTE(SUBSTITUTE(SUBSTITUTE(SUBSTITUTE(TRIM(%s),";",",")," ,",","),", ",","),", ",","))&","`, ref)
		find := func(s string) string {
			return fmt.Sprintf(`ISNUMBER(FIND(","&UPPER(%s)&",",%s))`, literal(s), list)
		}
		parts := []string{find(code)}
		if o := q.Option(code); o != nil && o.Label != code {
			parts = append(parts, find(o.Label))
		}
		return or(parts...)
	case TypeBool:
		ref := c.r.Cell("q:" + q.Name)
		if code == "true" {
			return ticked(ref)
		}
		return oneOf(ref, CheckboxFalse)
	}
	return "FALSE"
}

// codes are every code a question's answer may hold.
func codes(q *Question) []string {
	if q.Type == TypeBool {
		return []string{"true", "false"}
	}
	var out []string
	for _, o := range q.Options {
		out = append(out, o.Code)
	}
	return out
}

// cond compiles a condition as Cond.Holds reads it.
func (c *compiler) cond(cd *Cond) string {
	switch {
	case cd == nil:
		return "TRUE"
	case cd.All != nil:
		var parts []string
		for _, s := range cd.All {
			parts = append(parts, c.cond(s))
		}
		return and(parts...)
	case cd.Any != nil:
		var parts []string
		for _, s := range cd.Any {
			parts = append(parts, c.cond(s))
		}
		return or(parts...)
	case cd.Not != nil:
		return not(c.cond(cd.Not))
	}
	q := c.t.QuestionByName(cd.Question)
	if q == nil {
		return "FALSE"
	}
	hasAll := func(list []string) []string {
		var out []string
		for _, code := range list {
			out = append(out, c.has(q, code))
		}
		return out
	}
	switch {
	case cd.Answered != nil:
		if *cd.Answered {
			return c.answered(q)
		}
		return not(c.answered(q))
	case cd.AnyOf != nil:
		return or(hasAll(cd.AnyOf)...)
	case cd.AllOf != nil:
		return and(hasAll(cd.AllOf)...)
	case cd.NoneOf != nil:
		return not(or(hasAll(cd.NoneOf)...))
	case cd.Only != nil:
		// Nothing but these: none of the other codes. A value that is no
		// code at all is an invalid answer, which only allows too.
		var others []string
		for _, code := range codes(q) {
			if !slices.Contains(cd.Only, code) {
				others = append(others, code)
			}
		}
		return not(or(hasAll(others)...))
	case cd.AtLeast != nil || cd.AtMost != nil:
		if q.Type != TypeScale || q.Min == nil || q.Max == nil {
			return "FALSE"
		}
		lo, hi := *q.Min, *q.Max
		if cd.AtLeast != nil {
			lo = max(lo, *cd.AtLeast)
		}
		if cd.AtMost != nil {
			hi = min(hi, *cd.AtMost)
		}
		// An answer off the scale, or not whole, is invalid: no test
		// holds on it.
		v := "VALUE(TRIM(" + c.r.Cell("q:"+q.Name) + "))"
		return fmt.Sprintf("IFERROR(AND(%s=INT(%s),%s>=%d,%s<=%d),FALSE)", v, v, v, lo, v, hi)
	}
	return "FALSE"
}

// namesRowQuestion reports whether a rule names a question of a block's
// answer rows: such a rule is checked on every row, the others once per
// block (as pull does).
func (c *compiler) namesRowQuestion(r *Rule) bool {
	found := false
	visit := func(name string) {
		if q := c.t.QuestionByName(name); q != nil && q.Scope == "row" {
			found = true
		}
	}
	eachQuestion(r.When, visit)
	eachQuestion(r.Then, visit)
	return found
}

func eachQuestion(cd *Cond, fn func(string)) {
	if cd == nil {
		return
	}
	if cd.Question != "" {
		fn(cd.Question)
	}
	for _, s := range cd.All {
		eachQuestion(s, fn)
	}
	for _, s := range cd.Any {
		eachQuestion(s, fn)
	}
	eachQuestion(cd.Not, fn)
}

// firstQuestionOf is the question a rule's problem is about: the first
// its then names, else its when (where pull reports it).
func firstQuestionOf(conds ...*Cond) string {
	for _, cd := range conds {
		found := ""
		eachQuestion(cd, func(q string) {
			if found == "" {
				found = q
			}
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// annotator checks that a row (a block) with answers has an annotator
// ID. Where an annotator claims a whole instance of one-row units, pull
// takes a missing ID from the instance's other rows, with a warning.
func (c *compiler) annotator() LiveCheck {
	lc := LiveCheck{Name: "annotator", Severity: SeverityError, Keys: []string{RoleAnnotator},
		Text: literal(c.t.Annotator.Header + " missing")}
	if c.blocks {
		lc.Block = true
		lc.Gate = c.started(true)
		lc.Fails = not(anyText(c.r.Block(RoleAnnotator)))
		return lc
	}
	if c.t.Annotator.Claim == ClaimInstance {
		lc.Severity = SeverityWarning
	}
	lc.Gate = c.started(false)
	lc.Fails = not(hasText(c.r.Cell(RoleAnnotator)))
	return lc
}

// span checks a span question's text against its field: that it is
// there, which occurrence is meant when it is there more than once, and
// that it comes before the span it must precede.
func (c *compiler) span(q *Question) []LiveCheck {
	cx := c.t.ContextByName(q.Field)
	if cx == nil {
		return nil
	}
	key := "q:" + q.Name
	s, f := c.r.Cell(key), c.r.Cell("context:"+q.Field)
	block := c.blocks && q.Scope == "block"
	count := occurrences(f, s)
	given := hasText(s)
	out := []LiveCheck{{Name: "span:" + q.Name, Severity: SeverityError, Block: block, Keys: []string{key},
		Fails: and(given, count+"=0"), Text: literal(q.Header + " not in " + cx.Header)}}
	occKey := key + "#" + PartOccurrence
	occ := ""
	if q.Occurrence {
		occ = c.r.Cell(occKey)
	}
	if q.Before == "" {
		lc := LiveCheck{Name: "occurrence:" + q.Name, Severity: SeverityError, Block: block, Keys: []string{key},
			Fails: and(given, count+">1"), Text: concat(literal(q.Header+" occurs "), count, literal(" times in "+cx.Header))}
		if occ != "" {
			lc.Keys = append(lc.Keys, occKey)
			lc.Fails = and(lc.Fails, not(hasText(occ)))
			lc.Text = concat(lc.Text, literal(": give its occurrence"))
		}
		out = append(out, lc)
	}
	if occ != "" {
		n := "VALUE(TRIM(" + occ + "))"
		ok := fmt.Sprintf("IFERROR(AND(%s=INT(%s),%s>=1,%s<=%s),FALSE)", n, n, n, n, count)
		out = append(out, LiveCheck{Name: "occurrence-range:" + q.Name, Severity: SeverityError, Block: block, Keys: []string{occKey},
			Fails: and(given, count+">0", hasText(occ), not(ok)),
			Text:  concat(literal(q.Header+": occurrence "), "TRIM("+occ+")", literal(" of "), count)})
	}
	if a := c.t.QuestionByName(q.Before); a != nil && a.Type == TypeSpan && a.Field == q.Field {
		out = append(out, c.before(q, a, f, s, occ, block))
	}
	return out
}

// before checks that a span (a repetition's earlier text) ends before the
// span it must precede begins, where that span is found: the chosen
// occurrence of each, or the first.
func (c *compiler) before(q, anchor *Question, f, s, occ string, block bool) LiveCheck {
	a := c.r.Cell("q:" + anchor.Name)
	aocc := ""
	if anchor.Occurrence {
		aocc = c.r.Cell("q:" + anchor.Name + "#" + PartOccurrence)
	}
	// start is the 1-based place of the k-th occurrence of text in f.
	start := func(text, occ string) string {
		k := "1"
		if occ != "" {
			k = fmt.Sprintf("IF(%s,VALUE(TRIM(%s)),1)", hasText(occ), occ)
		}
		return fmt.Sprintf("FIND(CHAR(1),SUBSTITUTE(%s,%s,CHAR(1),%s))", f, text, k)
	}
	aCount := occurrences(f, a)
	located := aCount + "=1"
	if aocc != "" {
		located = or(located, and(aCount+">1", hasText(aocc)))
	}
	return LiveCheck{Name: "before:" + q.Name, Severity: SeverityError, Block: block, Keys: []string{"q:" + q.Name},
		Fails: fmt.Sprintf("IFERROR(%s,FALSE)", and(hasText(s), hasText(a), occurrences(f, s)+">0", located,
			fmt.Sprintf("%s+LEN(%s)>%s", start(s, occ), s, start(a, aocc)))),
		Text: literal(q.Header + " not before " + anchor.Header)}
}

// occurrences counts the places text occurs in field, without overlaps; 0
// when text is empty.
func occurrences(field, text string) string {
	return fmt.Sprintf(`IFERROR((LEN(%s)-LEN(SUBSTITUTE(%s,%s,"")))/LEN(%s),0)`, field, field, text, text)
}

func hasText(ref string) string { return "LEN(TRIM(" + ref + "))>0" }

func anyText(rng string) string { return "SUMPRODUCT(LEN(TRIM(" + rng + ")))>0" }

// ticked is true when a checkbox cell holds a spelling of TRUE.
func ticked(ref string) string { return oneOf(ref, CheckboxTrue) }

// oneOf is true when a cell's trimmed text is one of words, case aside
// as pull reads it. One search in the words joined by "|" keeps the
// formula short: it is on every row.
func oneOf(ref string, words []string) string {
	return fmt.Sprintf(`ISNUMBER(FIND("|"&LOWER(TRIM(%s))&"|",%s))`, ref, literal("|"+strings.Join(words, "|")+"|"))
}

// literal is a string constant, cut to what Excel allows in a formula;
// control characters (line breaks) become spaces.
func literal(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	u := utf16.Encode([]rune(s))
	if len(u) > maxLiteral {
		r := []rune(s)
		for len(utf16.Encode(r)) > maxLiteral-1 {
			r = r[:len(r)-1]
		}
		s = string(r) + "…"
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// concat joins string expressions with &, merging adjacent constants.
func concat(parts ...string) string {
	var out []string
	for _, part := range parts {
		for _, p := range splitTop(part, '&') {
			if n := len(out); n > 0 && isLiteral(out[n-1]) && isLiteral(p) {
				out[n-1] = out[n-1][:len(out[n-1])-1] + p[1:]
				continue
			}
			out = append(out, p)
		}
	}
	return strings.Join(out, "&")
}

// splitTop splits a formula at sep where it is outside string constants
// and parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, quoted, from := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[from:i])
			from = i + 1
		}
	}
	return append(out, s[from:])
}

// call returns the arguments of a formula that is one call of fn.
func call(s, fn string) ([]string, bool) {
	inner, ok := strings.CutPrefix(s, fn+"(")
	if !ok || !strings.HasSuffix(inner, ")") || !balanced(inner[:len(inner)-1]) {
		return nil, false
	}
	return splitTop(inner[:len(inner)-1], ','), true
}

// isLiteral reports whether an expression is one string constant.
func isLiteral(s string) bool {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return false
	}
	inner := s[1 : len(s)-1]
	return !strings.Contains(strings.ReplaceAll(inner, `""`, ""), `"`)
}

// and, or and not build boolean formulas, dropping constants where the
// result does not depend on them.
func and(parts ...string) string { return logic("AND", "TRUE", "FALSE", parts) }

func or(parts ...string) string { return logic("OR", "FALSE", "TRUE", parts) }

func logic(fn, neutral, absorbing string, parts []string) string {
	var keep []string
	for _, p := range parts {
		switch p {
		case neutral:
			continue
		case absorbing:
			return absorbing
		}
		if args, ok := call(p, fn); ok {
			keep = append(keep, args...) // AND(a,AND(b,c)) is AND(a,b,c)
			continue
		}
		keep = append(keep, p)
	}
	switch len(keep) {
	case 0:
		return neutral
	case 1:
		return keep[0]
	}
	return fn + "(" + strings.Join(keep, ",") + ")"
}

func not(p string) string {
	switch p {
	case "TRUE":
		return "FALSE"
	case "FALSE":
		return "TRUE"
	}
	if args, ok := call(p, "NOT"); ok && len(args) == 1 {
		return args[0]
	}
	return "NOT(" + p + ")"
}

// balanced reports whether the parentheses of a formula outside string
// constants pair up, so that NOT(x) can be undone only when x is whole.
func balanced(s string) bool {
	depth, quoted := 0, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case r == '(':
			depth++
		case r == ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && !quoted
}

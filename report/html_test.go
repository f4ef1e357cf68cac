package report

import (
	"bytes"
	"context"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/study"
)

// payloads are texts that would be markup, script or a formula if the
// page wrote them as they are.
var payloads = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
	`" onload="alert(1)`,
	`' onmouseover='alert(1)`,
	`</title><script>alert(1)</script>`,
	`</text><svg onload=alert(1)>`,
	`javascript:alert(1)`,
	`=cmd|' /C calc'!A0`,
	`</style><style>body{display:none}</style>`,
	// Characters that would act rather than show: a direction override
	// that makes an ID read backwards, a terminal's escape.
	"\u202egpt4o-12",
	"llama\u2066\u2067x\u2069",
	"\x1b[2Jcleared",
}

// poison replaces every string of v (fields, slices, maps' values) with a
// payload, in turn.
func poison(v reflect.Value, next func() string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			poison(v.Elem(), next)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				poison(v.Field(i), next)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			poison(v.Index(i), next)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(next())
		}
	}
}

// tags are the elements the page may hold, and attrs their attributes.
var (
	tags   = []string{"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "h4", "p", "code", "div", "b", "span", "i", "nav", "a", "main", "section", "table", "thead", "tbody", "tr", "th", "td", "figure", "figcaption", "svg", "line", "rect", "circle", "text", "details", "summary", "mark", "footer"}
	attrs  = []string{"charset", "http-equiv", "content", "name", "lang", "class", "id", "href", "viewBox", "width", "height", "role", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "text-anchor", "transform", "fill-opacity", "title", "open", "colspan"}
	tagRE  = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	attrRE = regexp.MustCompile(`\s([^\s=/>]+)(?:="([^"]*)")?`)
)

// checkPage checks a page's markup: only the elements and attributes the
// template writes, links within the page only, and no payload as it is.
// checkedPage writes rep's page and checks it (checkPage).
func checkedPage(t *testing.T, rep *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, rep); err != nil {
		t.Fatal(err)
	}
	checkPage(t, b.String())
	return b.String()
}

func checkPage(t *testing.T, page string) {
	t.Helper()
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		if !slices.Contains(tags, strings.ToLower(m[1])) {
			t.Errorf("element %q in the page: %s", m[1], m[0])
		}
		for _, a := range attrRE.FindAllStringSubmatch(m[2], -1) {
			if !slices.Contains(attrs, a[1]) {
				t.Errorf("attribute %q in the page: %s", a[1], m[0])
			}
			if a[1] == "href" && !strings.HasPrefix(a[2], "#") {
				t.Errorf("a link out of the page: %s", m[0])
			}
		}
	}
	for _, p := range payloads {
		if strings.ContainsAny(p, `<>"'`) && strings.Contains(page, p) {
			t.Errorf("the page holds %q as it is", p)
		}
	}
	if i := strings.IndexFunc(page, safetext.Acts); i >= 0 {
		t.Errorf("the page holds %U as it is: …%s…", []rune(page[i:])[0], page[max(0, i-40):min(len(page), i+40)])
	}
}

// TestReportWriteEscapes writes the page of a report whose every text —
// template title, sources, annotators, labels, headers, units, span
// texts, problem messages, workbook names, notes, the results' groups,
// statistics and options — is a payload, and
// checks that the page holds none of them as markup.
func TestReportWriteEscapes(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "qa-span-errors")
	var recs []*records.Annotation
	for u, who := range []string{"ak", "bt", "ak", "bt"} {
		unit := []string{"q1", "q1", "q2", "q2"}[u]
		recs = append(recs, rec(tp, unit, who, "complete", map[string]any{"checked": u%2 == 0, "corrected_prediction": "x"},
			span(u, u+4, []string{"Irrelevant", "Incoherent"}[u%2], "text")))
	}
	res := &study.Result{Records: recs, Problems: records.Problems{{Severity: "error", File: "b.xlsx", Sheet: "Annotate", Cell: "F2", Record: "q1", Message: "bad", Err: decode.ErrInvalidAnswer}}}
	gold := &study.Gold{Name: "gold.jsonl", Records: []*records.Annotation{rec(tp, "q1", "gold", "complete", map[string]any{"checked": true}, span(0, 4, "Irrelevant", "text"))}}
	gold.Records[0].Provenance = map[string]*records.Provenance{"checked": {Kind: "unanimous"}}
	rep, err := Build(context.Background(), tp, res, Options{Sources: []string{"study/"}, Gold: gold})
	if err != nil {
		t.Fatal(err)
	}
	rep.AddTexts(func(string, string) (string, bool) { return "0123456789 abcdefghij", true })
	group, option := "gpt4o", "true"
	rep.Results = &results.Report{Schema: results.Schema, Basis: results.BasisAnnotators, Params: results.Params{Level: 0.95, Resamples: 200, Permutations: 1000, Seed: 1}, Questions: []results.Question{{
		Question: "checked", Questions: []string{"checked", "other"}, Type: "bool", By: "system",
		Estimates: []results.Estimate{
			{Group: &group, Statistic: results.Share, Option: &option, Value: 0.5, Units: 2, CI: &[2]float64{0, 1}},
			{Statistic: results.Share, Option: &option, Value: 1, Units: 1, Note: "no interval"},
		},
		Comparisons: []results.Comparison{{A: "gpt4o", B: "llama3", Statistic: results.Share, Option: &option, Difference: 0.5, P: 0.5, PHolm: 1, Note: "no interval"}},
	}}}
	rep.ResultsInfo = &ResultsInfo{Headers: map[string]string{"checked": "Checked"}}
	k := 0
	poison(reflect.ValueOf(rep), func() string { k++; return payloads[k%len(payloads)] })
	page := checkedPage(t, rep)
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the page does not show the payload as text")
	}
	if !strings.Contains(page, `\u202egpt4o-12`) {
		t.Error("the page does not show the direction override as its escape")
	}
	t.Logf("%d strings replaced; a page of %d bytes", k, len(page))
}

// TestReportWriteOffline checks that the page asks for nothing: no script,
// style sheet, font, image or frame from anywhere, and a
// Content-Security-Policy that forbids them all the same.
func TestReportWriteOffline(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "preference-likert")
	var recs []*records.Annotation
	for _, who := range []string{"ak", "bt"} {
		for _, u := range []string{"t1", "t2", "t3"} {
			recs = append(recs, rec(tp, u, who, "complete", map[string]any{"best_prediction_reference": "first", "first_prediction_likert": len(u + who)}))
		}
	}
	rep, err := Build(context.Background(), tp, &study.Result{Records: recs}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := checkedPage(t, rep)
	for _, s := range []string{"http:", "https:", "//", "src=", "url(", "@import", "@font-face", "<script", "<link", "<img", "<iframe"} {
		if i := strings.Index(page, s); i >= 0 {
			t.Errorf("the page holds %q: %s", s, page[max(0, i-40):min(len(page), i+40)])
		}
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;`) &&
		!strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'`) {
		t.Error("the page has no Content-Security-Policy that forbids fetching")
	}
}

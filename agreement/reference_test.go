package agreement

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// referenceDirs hold the published agreement cases: the shared set
// beside the repository (in CI), and the copy kept in testdata so that
// the test runs without it. A case in both is read once, by id.
var referenceDirs = []string{
	filepath.Join("..", "..", "shared", "agreement"),
	filepath.Join("testdata", "reference"),
}

// refCase is one case file.
type refCase struct {
	ID        string          `json:"id"`
	Metric    string          `json:"metric"`
	Params    map[string]any  `json:"params"`
	Level     string          `json:"level"`
	Data      json.RawMessage `json:"data"`
	Expected  json.RawMessage `json:"expected"`
	Tolerance float64         `json:"tolerance"`
	file      string
}

func decodeRef(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// loadRefCases reads every case of every reference directory there is.
func loadRefCases(t *testing.T) []refCase {
	t.Helper()
	var cases []refCase
	seen := map[string]bool{}
	for _, dir := range referenceDirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c refCase
			if err := decodeRef(b, &c); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if c.ID == "" {
				t.Fatalf("%s: no id", f)
			}
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			c.file = f
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		t.Fatalf("no reference case in %v", referenceDirs)
	}
	return cases
}

// refData is the data of a case, in any of its formats.
type refData struct {
	Format  string          `json:"format"`
	Coders  []string        `json:"coders"`
	Units   json.RawMessage `json:"units"`
	Matrix  [][]any         `json:"matrix"`
	Triples [][]any         `json:"triples"`
	A       []any           `json:"a"`
	B       []any           `json:"b"`
}

// refGrid is a case's reliability data: units × coders of raw JSON values
// (nil, json.Number, string or []any).
type refGrid struct {
	coders, units []string
	cells         [][]any
}

func (c refCase) grid() (refGrid, error) {
	var d refData
	if err := decodeRef(c.Data, &d); err != nil {
		return refGrid{}, err
	}
	switch d.Format {
	case "matrix":
		var units []string
		if err := decodeRef(d.Units, &units); err != nil {
			return refGrid{}, fmt.Errorf("units: %v", err)
		}
		if len(d.Matrix) != len(units) {
			return refGrid{}, fmt.Errorf("%d units, %d rows", len(units), len(d.Matrix))
		}
		for i, row := range d.Matrix {
			if len(row) != len(d.Coders) {
				return refGrid{}, fmt.Errorf("row %d: %d values for %d coders", i, len(row), len(d.Coders))
			}
		}
		return refGrid{coders: d.Coders, units: units, cells: d.Matrix}.sorted(), nil
	case "triples":
		if d.Triples == nil {
			return refGrid{}, errors.New("format triples without a triples field")
		}
		type key struct{ unit, coder string }
		values := map[key]any{}
		var units, coders []string
		for _, tr := range d.Triples {
			if len(tr) != 3 {
				return refGrid{}, fmt.Errorf("triple %v", tr)
			}
			u, c := fmt.Sprint(tr[0]), fmt.Sprint(tr[1])
			if _, dup := values[key{u, c}]; dup {
				return refGrid{}, fmt.Errorf("two values for unit %s, coder %s", u, c)
			}
			values[key{u, c}] = tr[2]
			units = append(units, u)
			coders = append(coders, c)
		}
		slices.Sort(units)
		slices.Sort(coders)
		g := refGrid{coders: slices.Compact(coders), units: slices.Compact(units)}
		for _, u := range g.units {
			row := make([]any, len(g.coders))
			for i, c := range g.coders {
				row[i] = values[key{u, c}]
			}
			g.cells = append(g.cells, row)
		}
		return g, nil
	}
	return refGrid{}, fmt.Errorf("unknown data format %q", d.Format)
}

// sorted is the grid with its coders and units in sorted order, as a
// Table has them.
func (g refGrid) sorted() refGrid {
	cols := make([]int, len(g.coders))
	for i := range cols {
		cols[i] = i
	}
	sort.SliceStable(cols, func(i, j int) bool { return g.coders[cols[i]] < g.coders[cols[j]] })
	rows := make([]int, len(g.units))
	for i := range rows {
		rows[i] = i
	}
	sort.SliceStable(rows, func(i, j int) bool { return g.units[rows[i]] < g.units[rows[j]] })
	out := refGrid{}
	for _, c := range cols {
		out.coders = append(out.coders, g.coders[c])
	}
	for _, u := range rows {
		out.units = append(out.units, g.units[u])
		row := make([]any, len(cols))
		for i, c := range cols {
			row[i] = g.cells[u][c]
		}
		out.cells = append(out.cells, row)
	}
	return out
}

// format is the case's data format.
func (c refCase) format() string {
	var d refData
	_ = decodeRef(c.Data, &d)
	return d.Format
}

// numeric reports whether every value of the grid (and every declared
// category) is a number.
func (g refGrid) numeric(declared []any) bool {
	for _, row := range g.cells {
		for _, v := range row {
			if _, ok := v.(json.Number); v != nil && !ok {
				return false
			}
		}
	}
	for _, v := range declared {
		if _, ok := v.(json.Number); !ok {
			return false
		}
	}
	return true
}

func refLiteral(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	return fmt.Sprint(v)
}

func refNumber(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	return n.Float64()
}

// table turns the grid into a Table, each value made by val.
func (g refGrid) table(val func(any) (*Value, error)) (Table, error) {
	t := Table{Coders: g.coders}
	for i, id := range g.units {
		u := Unit{ID: id, Values: make([]*Value, len(g.coders))}
		for c, raw := range g.cells[i] {
			if raw == nil {
				continue
			}
			v, err := val(raw)
			if err != nil {
				return Table{}, fmt.Errorf("unit %s: %v", id, err)
			}
			u.Values[c] = v
		}
		t.Units = append(t.Units, u)
	}
	return t, nil
}

func refCode(raw any) (*Value, error) {
	if _, ok := raw.([]any); ok {
		return nil, fmt.Errorf("a set %v where a code is expected", raw)
	}
	return &Value{Code: refLiteral(raw)}, nil
}

func refNum(raw any) (*Value, error) {
	f, err := refNumber(raw)
	return &Value{Num: f}, err
}

func refSet(raw any) (*Value, error) {
	s, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("%v is not a set", raw)
	}
	set := []string{}
	for _, e := range s {
		set = append(set, refLiteral(e))
	}
	slices.Sort(set)
	return &Value{Set: slices.Compact(set)}, nil
}

// categories are the case's declared categories, else the distinct values
// sorted (as numbers when they all are).
func (g refGrid) categories(declared []any) []string {
	if declared != nil {
		out := make([]string, len(declared))
		for i, v := range declared {
			out[i] = refLiteral(v)
		}
		return out
	}
	var out []string
	for _, row := range g.cells {
		for _, v := range row {
			if v != nil {
				out = append(out, refLiteral(v))
			}
		}
	}
	if g.numeric(nil) {
		sort.SliceStable(out, func(i, j int) bool {
			a, _ := strconv.ParseFloat(out[i], 64)
			b, _ := strconv.ParseFloat(out[j], 64)
			return a < b
		})
	} else {
		slices.Sort(out)
	}
	return slices.Compact(out)
}

func (g refGrid) levels(declared []any) ([]float64, error) {
	var out []float64
	for _, v := range declared {
		f, err := refNumber(v)
		if err != nil {
			return nil, fmt.Errorf("categories: %v", err)
		}
		out = append(out, f)
	}
	return out, nil
}

// params checks that a case names only parameters the metric has, and
// returns them by name.
func (c refCase) params(allowed ...string) (map[string]string, []any, error) {
	out := map[string]string{}
	var declared []any
	for k, v := range c.Params {
		switch {
		case k == "categories":
			cats, ok := v.([]any)
			if !ok {
				return nil, nil, fmt.Errorf("categories %v is not a list", v)
			}
			declared = cats
		case slices.Contains(allowed, k):
			s, ok := v.(string)
			if !ok {
				return nil, nil, fmt.Errorf("param %s: %v is not a string", k, v)
			}
			out[k] = s
		default:
			return nil, nil, fmt.Errorf("metric %s has no param %q", c.Metric, k)
		}
	}
	return out, declared, nil
}

// refCoded is a case's table coded for a statistic, and the question
// function that reports it.
type refCoded struct {
	r        Ratings
	question func() Result
}

// code turns the grid into ratings: codes for nominal statistics, numbers
// for the ordinal, interval and ratio levels and for weights over numbers,
// sets for set distances.
func (g refGrid) code(kind string, declared []any) (refCoded, error) {
	switch kind {
	case "codes":
		t, err := g.table(refCode)
		if err != nil {
			return refCoded{}, err
		}
		cats := g.categories(declared)
		return refCoded{ChoiceRatings(t, cats), func() Result { return must(Choice(bg, t, cats, Options{})) }}, nil
	case "numbers":
		t, err := g.table(refNum)
		if err != nil {
			return refCoded{}, err
		}
		levels, err := g.levels(declared)
		if err != nil {
			return refCoded{}, err
		}
		return refCoded{ScaleRatings(t, levels), func() Result { return must(Scale(bg, t, levels, Options{})) }}, nil
	case "sets":
		t, err := g.table(refSet)
		if err != nil {
			return refCoded{}, err
		}
		var opts []string
		for _, o := range declared {
			opts = append(opts, refLiteral(o))
		}
		return refCoded{SetRatings(t), func() Result { return must(Multi(bg, t, opts, Options{})) }}, nil
	}
	panic(kind)
}

// hasSets reports whether the grid's values are sets.
func (g refGrid) hasSets() bool {
	for _, row := range g.cells {
		for _, v := range row {
			if _, ok := v.([]any); ok {
				return true
			}
		}
	}
	return false
}

// refTwoAnnotator is a two-annotator statistic as a question reports it:
// itself for two annotators, and for more the mean over the pairs that
// have a value, summed in ascending order.
func refTwoAnnotator(f func(Ratings) (float64, error)) func(Ratings) (float64, error) {
	return func(r Ratings) (float64, error) {
		if r.Coders <= 2 {
			return f(r)
		}
		var values []float64
		for i := range r.Coders {
			for j := i + 1; j < r.Coders; j++ {
				if v, err := f(r.Columns(i, j)); err == nil {
					values = append(values, v)
				}
			}
		}
		if len(values) == 0 {
			return 0, errors.New("no pair has a value")
		}
		slices.Sort(values)
		var sum float64
		for _, v := range values {
			sum += v
		}
		return sum / float64(len(values)), nil
	}
}

// refEvaluation is a statistic ready to run on a case: the ratings, the
// statistic, and the metric's name and params as a Result reports them.
type refEvaluation struct {
	refCoded
	stat   func(Ratings) (float64, error)
	params map[string]any
}

// dispatch picks the statistic a case's metric and params name.
func (c refCase) dispatch(g refGrid) (refEvaluation, error) {
	kindFor := func(weights string, declared []any) string {
		if g.hasSets() {
			return "sets"
		}
		if weights != "none" && g.numeric(declared) {
			return "numbers"
		}
		return "codes"
	}
	var (
		p        map[string]string
		declared []any
		err      error
		kind     string
		stat     func(Ratings) (float64, error)
		params   = map[string]any{}
	)
	switch c.Metric {
	case "krippendorff_alpha":
		if p, declared, err = c.params("level", "distance"); err != nil {
			return refEvaluation{}, err
		}
		level, distance := p["level"], p["distance"]
		var d Difference
		switch {
		case level != "" && distance != "":
			return refEvaluation{}, errors.New("both a level and a distance")
		case level == "nominal":
			d, kind = Nominal, "codes"
		case level == "ordinal", level == "interval", level == "ratio":
			d, kind = Difference(level), "numbers"
		case distance == "masi", distance == "jaccard":
			d, kind = Difference(distance), "sets"
		default:
			return refEvaluation{}, fmt.Errorf("unknown level %q or distance %q", level, distance)
		}
		k, v := d.Param()
		params[k] = v
		stat = func(r Ratings) (float64, error) { return KrippendorffAlpha(r, d) }
	case "cohen_kappa", "fleiss_kappa", "gwet_ac2":
		if p, declared, err = c.params("weights"); err != nil {
			return refEvaluation{}, err
		}
		w := Weighting(p["weights"])
		if w == "" {
			w = Unweighted
		}
		if w != Unweighted && w != Linear && w != Quadratic {
			return refEvaluation{}, fmt.Errorf("unknown weights %q", string(w))
		}
		kind = kindFor(string(w), declared)
		params["weights"] = string(w)
		f := map[string]func(Ratings, Weighting) (float64, error){
			"cohen_kappa": CohenKappa, "fleiss_kappa": FleissKappa, "gwet_ac2": GwetAC2,
		}[c.Metric]
		stat = func(r Ratings) (float64, error) { return f(r, w) }
		if c.Metric == "cohen_kappa" {
			stat = refTwoAnnotator(stat)
		}
	case "percent_agreement", "gwet_ac1", "brennan_prediger", "scott_pi", "bennett_s", "mean_jaccard":
		if _, declared, err = c.params(); err != nil {
			return refEvaluation{}, err
		}
		kind = kindFor("none", declared)
		stat = map[string]func(Ratings) (float64, error){
			"percent_agreement": PercentAgreement,
			"gwet_ac1":          GwetAC1,
			"brennan_prediger":  BrennanPrediger,
			"scott_pi":          refTwoAnnotator(ScottPi),
			"bennett_s":         refTwoAnnotator(BennettS),
			"mean_jaccard":      MeanJaccard,
		}[c.Metric]
		if c.Metric == "mean_jaccard" {
			kind = "sets"
		}
	default:
		return refEvaluation{}, fmt.Errorf("unknown metric %q", c.Metric)
	}
	cd, err := g.code(kind, declared)
	if err != nil {
		return refEvaluation{}, err
	}
	return refEvaluation{refCoded: cd, stat: stat, params: params}, nil
}

// refPairDistance computes a distance between the two sets of a pair case.
func refPairDistance(metric string, a, b []any) (float64, error) {
	sa, err := refSet(a)
	if err != nil {
		return 0, err
	}
	sb, err := refSet(b)
	if err != nil {
		return 0, err
	}
	switch metric {
	case "masi_distance":
		return MASIDistance(sa.Set, sb.Set), nil
	case "jaccard_distance":
		return JaccardDistance(sa.Set, sb.Set), nil
	}
	return 0, fmt.Errorf("unknown pair metric %q", metric)
}

// expected reads a case's expected value: a number, or numbers by name.
func (c refCase) expected() (map[string]float64, bool, error) {
	var x any
	if err := decodeRef(c.Expected, &x); err != nil {
		return nil, false, err
	}
	switch x := x.(type) {
	case json.Number:
		f, err := x.Float64()
		return map[string]float64{c.Metric: f}, false, err
	case map[string]any:
		out := map[string]float64{}
		for k, v := range x {
			f, err := refNumber(v)
			if err != nil {
				return nil, false, fmt.Errorf("expected %s: %v", k, err)
			}
			out[k] = f
		}
		return out, true, nil
	}
	return nil, false, fmt.Errorf("expected %v is neither a number nor an object", x)
}

func withinTolerance(got, want, tol float64) bool {
	return !math.IsNaN(got) && math.Abs(got-want) <= tol
}

// TestReference computes every reference case that is not about spans
// and compares it with the published value. An unknown metric, param,
// level or format fails: a case is never passed over unless it is about
// spans, which package agreement's span metrics test.
func TestReference(t *testing.T) {
	t.Parallel()
	for _, c := range loadRefCases(t) {
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			if c.format() == "spans" {
				t.Skipf("%s: format spans: left to the span metrics' tests", c.ID)
			}
			want, named, err := c.expected()
			if err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			tol := c.Tolerance
			if tol == 0 {
				tol = 1e-9
			}
			if c.format() == "pair" {
				if c.Level != "pair" {
					t.Fatalf("%s: format pair at level %q", c.file, c.Level)
				}
				var d refData
				if err := decodeRef(c.Data, &d); err != nil {
					t.Fatal(err)
				}
				for _, metric := range slices.Sorted(maps.Keys(want)) {
					got, err := refPairDistance(metric, d.A, d.B)
					if err != nil {
						t.Fatalf("%s: %v", c.file, err)
					}
					if !withinTolerance(got, want[metric], tol) {
						t.Errorf("%s = %.9g, want %.9g ± %g", metric, got, want[metric], tol)
					}
					t.Logf("%s = %.9g (expected %.9g)", metric, got, want[metric])
				}
				return
			}
			if c.Level != "corpus" && c.Level != "pair" {
				t.Fatalf("%s: unknown level %q", c.file, c.Level)
			}
			if named {
				t.Fatalf("%s: metric %s on format %s: expected holds several values %v", c.file, c.Metric, c.format(), want)
			}
			g, err := c.grid()
			if err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			e, err := c.dispatch(g)
			if err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			got, err := e.stat(e.r)
			if err != nil {
				t.Fatalf("%s: %s has no value: %v", c.file, c.Metric, err)
			}
			if !withinTolerance(got, want[c.Metric], tol) {
				t.Errorf("%s %v = %.9g, want %.9g ± %g", c.Metric, e.params, got, want[c.Metric], tol)
			}
			t.Logf("%s %v = %.9g (expected %.9g)", c.Metric, e.params, got, want[c.Metric])
			// The question's Result reports the same number, when its type
			// reports the metric.
			if m, ok := findMetric(e.question(), c.Metric, e.params); ok {
				if v, _ := m.Value.(float64); v != got {
					t.Errorf("the question reports %s %v = %v (%s), the statistic %.17g", c.Metric, e.params, m.Value, m.Note, got)
				}
			} else {
				t.Logf("the question does not report %s %v", c.Metric, e.params)
			}
		})
	}
}

// TestCorroborated checks the further values the cases cite beside
// their own (corroborated_by, citation, intermediate): other statistics
// on the same data, as irrCAC, Gwet (2015) and the Wikipedia examples
// give them.
func TestCorroborated(t *testing.T) {
	t.Parallel()
	byID := map[string]refCase{}
	for _, c := range loadRefCases(t) {
		byID[c.ID] = c
	}
	const (
		k2011 = "ac1-gwet-krippendorff2011" // Krippendorff's (2011) matrix, categories 1 to 5 declared
		cohen = "kappa-cohen-wikipedia-50"
		fleis = "kappa-fleiss-wikipedia"
	)
	tests := []struct {
		source, data, metric string
		params               map[string]any
		want, tol            float64
	}{
		{"irrCAC pa 0.8181818; Gwet (2015) 0.8182", k2011, "percent_agreement", nil, 0.8181818, 5e-8},
		{"irrCAC Fleiss 0.76117", k2011, "fleiss_kappa", map[string]any{"weights": "none"}, 0.76117, 5e-6},
		{"irrCAC Brennan-Prediger 0.77273 (q = 5)", k2011, "brennan_prediger", nil, 0.77273, 5e-6},
		{"irrCAC Krippendorff alpha 0.74342; Gwet (2015) 0.7434", k2011, "krippendorff_alpha", map[string]any{"level": "nominal"}, 0.74342, 5e-6},
		{"Gwet (2015) AC2 0.7754 (unweighted)", k2011, "gwet_ac2", map[string]any{"weights": "none"}, 0.7754, 5e-5},
		{"irrCAC weighting vignette, quadratic alpha 0.84911", k2011, "krippendorff_alpha", map[string]any{"level": "interval"}, 0.84911, 5e-6},
		{"irrCAC weighting vignette, quadratic AC2 0.914", k2011, "gwet_ac2", map[string]any{"weights": "quadratic"}, 0.914, 5e-4},
		{"irrCAC weighting vignette, quadratic Fleiss 0.86494", k2011, "fleiss_kappa", map[string]any{"weights": "quadratic"}, 0.86494, 5e-6},
		{"fast-krippendorff ordinal 0.815", k2011, "krippendorff_alpha", map[string]any{"level": "ordinal"}, 0.815, 5e-4},
		{"fast-krippendorff ratio 0.797", k2011, "krippendorff_alpha", map[string]any{"level": "ratio"}, 0.797, 5e-4},
		{"Wikipedia Cohen's kappa: p_o 0.7", cohen, "percent_agreement", nil, 0.7, 1e-12},
		{"Wikipedia Fleiss' kappa: P-bar 0.378", fleis, "percent_agreement", nil, 0.378, 5e-4},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			t.Parallel()
			c, ok := byID[tt.data]
			if !ok {
				t.Fatalf("no reference case %s", tt.data)
			}
			c.Metric = tt.metric
			params := maps.Clone(tt.params)
			if params == nil {
				params = map[string]any{}
			}
			if cats, ok := c.Params["categories"]; ok {
				params["categories"] = cats
			}
			c.Params = params
			g, err := c.grid()
			if err != nil {
				t.Fatal(err)
			}
			e, err := c.dispatch(g)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.stat(e.r)
			if err != nil {
				t.Fatalf("%s has no value: %v", tt.metric, err)
			}
			if !withinTolerance(got, tt.want, tt.tol) {
				t.Errorf("%s %v = %.9g, want %.9g ± %g", tt.metric, e.params, got, tt.want, tt.tol)
			}
			t.Logf("%s %v = %.9g (cited %g)", tt.metric, e.params, got, tt.want)
		})
	}
}

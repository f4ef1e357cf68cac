package input

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// A factgenie source joins generated outputs with the error spans that one
// or more evaluators found in them. Each record is one output:
//
//	{"dataset", "split", "setup_id", "example_idx", "output", ...,
//	 "spans": [{"evaluator", "text", "start", "type", "category", "reason", "index"}]}
//
// Inputs may be given as
//   - a folder holding outputs.jsonl and evaluators/NAME/ folders;
//   - outputs.jsonl plus evaluator folders, each given on its own;
//
// The outputs may also be a table, a row an output, by the file's
// extension: outputs.csv, .tsv, .parquet or .xlsx (its first sheet), as a
// dataset hub or pandas gives them;
//
// where an evaluator folder holds either annotations.jsonl with the span
// categories in config.yaml, or a factgenie campaign: metadata.json (the
// categories under config.annotation_span_categories) and files/*.jsonl.
// The evaluator's name is its folder's name.
type factgenieSource struct {
	records []*layout.Record
	files   []string
}

func (s *factgenieSource) Files() []string { return s.files }

func (s *factgenieSource) Each(fn func(*layout.Record) error) error {
	for _, r := range s.records {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

type evaluatorDir struct {
	name, dir string
}

// OpenFactgenie reads factgenie outputs and evaluator annotations; see the
// layouts above. Factgenie data sets are small, so they are read at once.
func OpenFactgenie(paths []string) (layout.Source, error) {
	return openFactgenie(context.Background(), paths)
}

// openFactgenie is OpenFactgenie, reading no further once ctx is done.
func openFactgenie(ctx context.Context, paths []string) (layout.Source, error) {
	var outputs []string
	var evals []evaluatorDir
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		if !st.IsDir() {
			outputs = append(outputs, p)
			continue
		}
		if isEvaluatorDir(p) {
			evals = append(evals, evaluatorDir{name: filepath.Base(filepath.Clean(p)), dir: p})
			continue
		}
		found := false
		for _, name := range outputsNames {
			if o := filepath.Join(p, name); fileExists(o) {
				outputs = append(outputs, o)
				found = true
			}
		}
		sub := filepath.Join(p, "evaluators")
		if entries, err := os.ReadDir(sub); err == nil {
			for _, e := range entries {
				d := filepath.Join(sub, e.Name())
				if e.IsDir() && isEvaluatorDir(d) {
					evals = append(evals, evaluatorDir{name: e.Name(), dir: d})
					found = true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("input %s: not a factgenie folder: expected outputs.jsonl (or outputs.csv, .tsv, .parquet, .xlsx), evaluators/, or an evaluator's annotations.jsonl or metadata.json", p)
		}
	}
	if len(outputs) == 0 {
		return nil, errors.New("input: factgenie needs the outputs (outputs.jsonl, or a table such as outputs.csv) the spans refer to")
	}
	if len(evals) == 0 {
		return nil, errors.New("input: factgenie needs at least one evaluator folder (annotations.jsonl with config.yaml, or a campaign with metadata.json)")
	}
	sort.SliceStable(evals, func(i, j int) bool { return evals[i].name < evals[j].name })
	for i := 1; i < len(evals); i++ {
		if evals[i].name == evals[i-1].name {
			return nil, fmt.Errorf("input: two evaluators are both called %q (%s, %s)", evals[i].name, evals[i-1].dir, evals[i].dir)
		}
	}

	s := &factgenieSource{}
	byKey := map[string]*layout.Record{}
	var bad records.Problems
	src, err := openOutputs(ctx, outputs)
	if err != nil {
		return nil, err
	}
	err = src.Each(func(r *layout.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		m, k, p := factgenieRecord(r, "a factgenie output")
		if p != nil {
			bad = append(bad, p)
			return nil
		}
		if prev := byKey[k]; prev != nil {
			bad = append(bad, &records.Problem{Severity: records.Error, File: r.File, Line: r.Line, Err: records.ErrDuplicateID,
				Message: fmt.Sprintf("output %s is also at %s:%d", k, prev.File, prev.Line)})
			return nil
		}
		m["spans"] = []any{}
		byKey[k] = r
		s.records = append(s.records, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, src.Files()...)
	for _, ev := range evals {
		files, perr, err := readEvaluator(ctx, ev, byKey)
		if err != nil {
			return nil, err
		}
		bad = append(bad, perr...)
		s.files = append(s.files, files...)
		if len(bad) >= records.MaxErrors {
			break
		}
	}
	if len(bad) > 0 {
		return nil, bad
	}
	return s, nil
}

// outputsNames are the names of the outputs in a factgenie folder.
var outputsNames = []string{"outputs.jsonl", "outputs.csv", "outputs.tsv", "outputs.parquet", "outputs.xlsx"}

// openOutputs opens factgenie's outputs: JSON Lines, or a table by the
// file's extension (see byExtension), each cell its text.
func openOutputs(ctx context.Context, outputs []string) (layout.Source, error) {
	src, err := OpenContext(ctx, "jsonl", outputs)
	if err != nil {
		return nil, err
	}
	js := src.(*jsonSource)
	for i, f := range js.files {
		if format, ok := byExtension[strings.ToLower(filepath.Ext(f.path))]; ok {
			js.files[i].format = format
		}
	}
	return js, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func isEvaluatorDir(d string) bool {
	return fileExists(filepath.Join(d, "annotations.jsonl")) || fileExists(filepath.Join(d, "metadata.json"))
}

// factgenieRecord reads a record of a factgenie file (what names its kind
// in messages) as an object and its key.
func factgenieRecord(r *layout.Record, what string) (map[string]any, string, *records.Problem) {
	m, ok := r.Data.(map[string]any)
	if !ok {
		return nil, "", &records.Problem{Severity: records.Error, File: r.File, Line: r.Line, Err: records.ErrBadValue, Message: what + " must be a JSON object"}
	}
	k, missing := factgenieKey(m)
	if missing != "" {
		return nil, "", &records.Problem{Severity: records.Error, File: r.File, Line: r.Line, Field: missing, Err: records.ErrMissingField,
			Message: what + " needs dataset, split, setup_id and example_idx"}
	}
	return m, k, nil
}

// factgenieKey identifies an output; missing names the first absent field.
func factgenieKey(m map[string]any) (key, missing string) {
	setup, ok := m["setup_id"]
	if !ok {
		// Older factgenie files nest the setup: {"setup": {"id": ...}}.
		if s, isMap := m["setup"].(map[string]any); isMap {
			setup = s["id"]
		}
	}
	if none(setup) {
		return "", "setup_id"
	}
	for _, f := range []string{"dataset", "split", "example_idx"} {
		if none(m[f]) {
			return "", f
		}
	}
	return fmt.Sprintf("%v/%v/%v/%v", m["dataset"], m["split"], setup, m["example_idx"]), ""
}

// none says a key field has no value: absent, null, or a table's empty
// cell.
func none(v any) bool { return v == nil || v == "" }

// MaxConfigSize is the largest evaluator configuration read for its span
// categories: an evaluator's config.yaml or a campaign's metadata.json.
// They hold the categories and the annotators' instructions, under a
// kilobyte in factgenie's examples; 16 MiB leaves room for instructions
// with pictures pasted in, and keeps a hostile file from exhausting
// memory.
const MaxConfigSize = 16 << 20

func readConfig(name string) ([]byte, error) {
	return boundedread.ReadFile(name, MaxConfigSize, "an evaluator's configuration")
}

// configProblem is the problem of a configuration that cannot be read, if
// any; prefix says what is lost.
func configProblem(name string, err error, prefix string) *records.Problem {
	var tl *boundedread.TooLargeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tl):
		return &records.Problem{Severity: records.Error, File: name, Err: records.ErrMalformed,
			Message: fmt.Sprintf("%slarger than the %s %s may be", prefix, boundedread.Size(tl.Limit), tl.What)}
	}
	return &records.Problem{Severity: records.Error, File: name, Err: records.ErrMissingField, Message: prefix + err.Error()}
}

// readEvaluator attaches one evaluator's spans to the outputs they concern.
func readEvaluator(ctx context.Context, ev evaluatorDir, byKey map[string]*layout.Record) ([]string, records.Problems, error) {
	var files []string
	var cats []string
	var catFile string
	var bad records.Problems
	if p := filepath.Join(ev.dir, "annotations.jsonl"); fileExists(p) {
		catFile = filepath.Join(ev.dir, "config.yaml")
		files = append(files, p, catFile)
		var cfg struct {
			Categories []struct {
				Name string `yaml:"name"`
			} `yaml:"annotation_span_categories"`
		}
		b, err := readConfig(catFile)
		if p := configProblem(catFile, err, "cannot read the span categories: "); p != nil {
			return nil, records.Problems{p}, nil
		}
		if err := yaml.Unmarshal(b, &cfg); err != nil {
			return nil, records.Problems{{Severity: records.Error, File: catFile, Err: records.ErrMalformed, Message: "invalid YAML: " + err.Error()}}, nil
		}
		for _, c := range cfg.Categories {
			cats = append(cats, c.Name)
		}
	} else {
		catFile = filepath.Join(ev.dir, "metadata.json")
		var meta struct {
			Config struct {
				Categories []struct {
					Name string `json:"name"`
				} `json:"annotation_span_categories"`
			} `json:"config"`
		}
		b, err := readConfig(catFile)
		if p := configProblem(catFile, err, ""); p != nil {
			return nil, records.Problems{p}, nil
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			return nil, records.Problems{{Severity: records.Error, File: catFile, Err: records.ErrMalformed, Message: "invalid JSON: " + err.Error()}}, nil
		}
		for _, c := range meta.Config.Categories {
			cats = append(cats, c.Name)
		}
		matches, _ := filepath.Glob(filepath.Join(ev.dir, "files", "*.jsonl"))
		sort.Strings(matches)
		files = append(files, catFile)
		files = append(files, matches...)
		if len(matches) == 0 {
			return nil, records.Problems{{Severity: records.Error, File: filepath.Join(ev.dir, "files"), Err: records.ErrMissingField, Message: "a campaign folder needs its annotations in files/*.jsonl"}}, nil
		}
	}
	if len(cats) == 0 {
		bad = append(bad, &records.Problem{Severity: records.Error, File: catFile, Err: records.ErrMissingField, Message: "no annotation_span_categories: the span types cannot be named"})
		return files, bad, nil
	}
	var spanFiles []string
	for _, f := range files {
		if strings.HasSuffix(f, ".jsonl") {
			spanFiles = append(spanFiles, f)
		}
	}
	src, err := Open("jsonl", spanFiles)
	if err != nil {
		return files, records.Problems{{Severity: records.Error, File: ev.dir, Err: records.ErrMalformed, Message: err.Error()}}, nil
	}
	var stopped error // ctx's, which is not a problem of the files
	err = src.Each(func(r *layout.Record) error {
		if stopped = ctx.Err(); stopped != nil {
			return stopped
		}
		m, k, p := factgenieRecord(r, "an annotation record")
		if p != nil {
			bad = append(bad, p)
			return nil
		}
		out := byKey[k]
		if out == nil {
			bad = append(bad, &records.Problem{Severity: records.Error, File: r.File, Line: r.Line, Err: records.ErrMissingField,
				Message: fmt.Sprintf("no output %s in the outputs for these spans", k)})
			return nil
		}
		anns, ok := m["annotations"].([]any)
		if !ok {
			if _, present := m["annotations"]; !present || m["annotations"] != nil {
				bad = append(bad, &records.Problem{Severity: records.Error, File: r.File, Line: r.Line, Field: "annotations", Err: records.ErrMissingField, Message: "expected a list of annotations"})
			}
			return nil
		}
		om := out.Data.(map[string]any)
		spans := om["spans"].([]any)
		for i, a := range anns {
			am, ok := a.(map[string]any)
			if !ok {
				bad = append(bad, &records.Problem{Severity: records.Error, File: r.File, Line: r.Line, Field: fmt.Sprintf("annotations[%d]", i), Err: records.ErrBadValue, Message: "an annotation must be an object"})
				continue
			}
			span := map[string]any{"evaluator": ev.name, "index": json.Number(fmt.Sprint(i))}
			for _, f := range []string{"text", "start", "type", "reason"} {
				if v, ok := am[f]; ok {
					span[f] = v
				}
			}
			typ, err := asInt(am["type"])
			if err != nil || typ < 0 || typ >= len(cats) {
				bad = append(bad, &records.Problem{Severity: records.Error, File: r.File, Line: r.Line, Field: fmt.Sprintf("annotations[%d].type", i), Err: records.ErrBadValue,
					Message: fmt.Sprintf("type %v is not an index into the %d categories of %s", am["type"], len(cats), catFile)})
				continue
			}
			span["category"] = cats[typ]
			spans = append(spans, span)
		}
		om["spans"] = spans
		return nil
	})
	var ps records.Problems
	switch {
	case stopped != nil:
		return files, nil, stopped
	case errors.As(err, &ps):
		bad = append(bad, ps...)
	case err != nil:
		bad = append(bad, &records.Problem{Severity: records.Error, File: ev.dir, Err: records.ErrMalformed, Message: err.Error()})
	}
	return files, bad, nil
}

// asInt reads a whole number from a decoded JSON value.
func asInt(v any) (int, error) {
	switch v := v.(type) {
	case json.Number:
		n, err := v.Int64()
		return int(n), err
	case float64:
		if v == float64(int(v)) {
			return int(v), nil
		}
	case int:
		return v, nil
	}
	return 0, fmt.Errorf("%v is not a whole number", v)
}

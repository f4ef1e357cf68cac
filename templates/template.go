package templates

import (
	"crypto/sha256"
	"encoding/hex"
)

// Template is one annotation scheme: what the annotator sees, what they
// answer, which answers are allowed, and how answers map to the study's
// native file. Load a template with Load or Builtin (input.Template reads
// one from a file); the loaders check it and compile its paths, so every
// method below may assume a valid template.
type Template struct {
	Name         string      `yaml:"name" json:"name"`
	Version      int         `yaml:"version" json:"version"`
	Title        string      `yaml:"title" json:"title"`
	Summary      string      `yaml:"summary" json:"summary"`
	Instructions string      `yaml:"instructions" json:"instructions"`
	Params       []Param     `yaml:"params" json:"params,omitempty"`
	Input        Input       `yaml:"input" json:"input"`
	Anonymize    []Anonymize `yaml:"anonymize" json:"anonymize,omitempty"`
	Shuffle      *Shuffle    `yaml:"shuffle" json:"shuffle,omitempty"`
	Rows         Rows        `yaml:"rows" json:"rows"`
	Context      []Context   `yaml:"context" json:"context"`
	Questions    []Question  `yaml:"questions" json:"questions"`
	Rules        []Rule      `yaml:"rules" json:"rules,omitempty"`
	Annotator    Annotator   `yaml:"annotator" json:"annotator"`
	Bands        Bands       `yaml:"bands" json:"bands"`
	Export       *Export     `yaml:"export" json:"export,omitempty"`
	// Groups are what results compare: the systems, evaluators … each
	// unit belongs to (see Group).
	Groups []Group `yaml:"groups" json:"groups,omitempty"`

	// Source is the YAML text the template was loaded from.
	Source []byte `yaml:"-" json:"-"`
	// File names where Source came from ("builtin:NAME" for built-ins).
	File string `yaml:"-" json:"-"`

	params map[string]string
}

// Param is a value a coordinator may set when generating (--param
// NAME=VALUE); paths refer to it as ${NAME}.
type Param struct {
	Name        string `yaml:"name" json:"name"`
	Default     string `yaml:"default" json:"default"`
	Description string `yaml:"description" json:"description,omitempty"`
	Line        int    `yaml:"-" json:"-"`
}

// Input says how input files are read and how each record is identified.
type Input struct {
	// Format is jsonl, json (an array, or an object keyed by id), factgenie
	// (a folder of factgenie outputs and evaluator annotations), or auto.
	Format string `yaml:"format" json:"format,omitempty"`
	// ID is a Format giving each record's id, e.g. "{id}", "{$key}" (the
	// key of a JSON object), or "q{$i:04}" (position in the input).
	ID   string `yaml:"id" json:"id"`
	Line int    `yaml:"-" json:"-"`

	id Format
}

// Anonymize replaces a revealing value (an evaluator's name, say) by a
// neutral label (A, B, C …) before anything reaches the workbook. The key
// from label to name stays with the coordinator.
type Anonymize struct {
	// Field is the path of the real value, "@.evaluator" for a field of each
	// list element or "system" for a field of the record.
	Field string `yaml:"field" json:"field"`
	// As names the field that receives the label, next to Field.
	As string `yaml:"as" json:"as"`
	// Labels is "letters" (A, B, … Z, AA …; the default) or "numbers".
	Labels string `yaml:"labels" json:"labels,omitempty"`
	// Prefix goes before each label ("S" gives S1, S2 …), to tell the
	// labels of different fields apart.
	Prefix string `yaml:"prefix" json:"prefix,omitempty"`
	Line   int    `yaml:"-" json:"-"`

	field Path
}

// Shuffle shows the candidates of an instance (the predictions of several
// systems, say) in an order drawn anew for each instance, so that no
// annotator learns which system comes first. A candidate's context columns,
// its questions and its code in the choice questions move together: the
// columns keep their headers ("First prediction"), which then name the
// place shown, not the candidate. The order of each instance is kept in the
// coordinator's manifest, never in the workbook; pull and export use it to
// put every answer back on its candidate.
type Shuffle struct {
	Candidates []Candidate `yaml:"candidates" json:"candidates"`
	// Choices are choice or multi questions whose options include every
	// candidate's code ("which prediction is best?").
	Choices []string `yaml:"choices" json:"choices,omitempty"`
	Line    int      `yaml:"-" json:"-"`
}

// Candidate is one of the things shuffled: its code (as the choice options
// name it), and the context columns and questions that belong to it, in
// the same order for every candidate.
type Candidate struct {
	Code      string   `yaml:"code" json:"code"`
	Context   []string `yaml:"context" json:"context"`
	Questions []string `yaml:"questions" json:"questions,omitempty"`
	Line      int      `yaml:"-" json:"-"`
}

// Row layouts.
const (
	PerRecord  = "record"  // one row per record
	PerElement = "element" // one row per element of a list in the record
	PerBlock   = "block"   // a block of empty answer rows per record
)

// Rows is the row layout of the Annotate sheet.
type Rows struct {
	Per string `yaml:"per" json:"per"`
	// Path is the list whose elements get a row each (per: element).
	Path string `yaml:"path" json:"path,omitempty"`
	// OrderBy sorts the elements of a record (stable) by these paths.
	OrderBy []string `yaml:"order_by" json:"order_by,omitempty"`
	// Unit is a Format for the id of each row's unit (per: element);
	// "{$id}#{$n}" by default.
	Unit string `yaml:"unit" json:"unit,omitempty"`
	// AnswerRows is how many empty answer rows each block has (per: block).
	AnswerRows int `yaml:"answer_rows" json:"answer_rows,omitempty"`
	// Spans names the answer rows of a block in canonical JSON
	// (spans[].question); "spans" by default.
	Spans string `yaml:"spans" json:"spans,omitempty"`
	// Label is the choice question whose answer labels each span.
	Label string `yaml:"label" json:"label,omitempty"`
	// Answers is where the answer columns go: "left", right after the ID
	// column (and the annotator's, when it is on the left) and frozen with
	// it, so that they stay in view beside whichever context is scrolled
	// to; or "right", after the context (the default).
	Answers string `yaml:"answers" json:"answers,omitempty"`
	// IDDisplay is what the ID column (and the workbook's hidden unit
	// IDs) show: IDReal, the input's own ids (the default), or IDOpaque,
	// item-0001, item-0002 … in the study's order, for ids that tell
	// annotators what they must not know; the key stays in the manifest.
	IDDisplay string `yaml:"id_display" json:"id_display,omitempty"`
	// IDHeader is the header of the leftmost column, the instance id.
	IDHeader string  `yaml:"id_header" json:"id_header,omitempty"`
	IDWidth  float64 `yaml:"id_width" json:"id_width,omitempty"`
	Line     int     `yaml:"-" json:"-"`

	path    Path
	orderBy []Path
	unit    Format
}

// Context is a read-only column shown to the annotator.
type Context struct {
	Name        string  `yaml:"name" json:"name"`
	Header      string  `yaml:"header" json:"header"`
	Description string  `yaml:"description" json:"description,omitempty"`
	Path        string  `yaml:"path" json:"path"`
	Join        *Join   `yaml:"join" json:"join,omitempty"`
	Width       float64 `yaml:"width" json:"width,omitempty"`
	// Optional lets records lack the field; the cell is then empty.
	Optional bool `yaml:"optional" json:"optional,omitempty"`
	// FirstRowOnly shows the value only on the first row of a record
	// (per: element); blocks always show context on their first row.
	FirstRowOnly bool `yaml:"first_row_only" json:"first_row_only,omitempty"`
	Line         int  `yaml:"-" json:"-"`

	// Show says which part of a text too long for its cell the cell
	// shows: ShowHead (the beginning; the default) or ShowTail (the end).
	// The workbook's Read sheet holds the whole text.
	Show string `yaml:"show" json:"show,omitempty"`

	path Path
}

// What a context cell shows of a text too long for it (Context.Show).
const (
	ShowHead = "head" // the beginning, cut at the end
	ShowTail = "tail" // the end, cut at the beginning
)

// Join renders a list (or a list of lists) as one cell.
type Join struct {
	// Item is a Format for each element. Inside it, paths are relative to
	// the element; "$" is the element itself, "$i"/"$n" its 0/1-based
	// position, "$i1"/"$n1" and "$i2"/"$n2" the positions in the outer and
	// inner list of a list of lists. Default "{$}".
	Item string `yaml:"item" json:"item,omitempty"`
	// Separator goes between items; "\n" by default.
	Separator *string `yaml:"separator" json:"separator,omitempty"`
	// GroupSeparator goes between the inner lists of a list of lists;
	// Separator by default.
	GroupSeparator *string `yaml:"group_separator" json:"group_separator,omitempty"`
	Line           int     `yaml:"-" json:"-"`

	item Format
}

// Question types.
const (
	TypeChoice   = "choice"
	TypeMulti    = "multi"
	TypeScale    = "scale"
	TypeBool     = "bool"
	TypeText     = "text"
	TypeSpan     = "span"
	TypeEvidence = "evidence"
)

// Question is an answer column (or, for multi and evidence, a few).
type Question struct {
	Name        string `yaml:"name" json:"name"`
	Header      string `yaml:"header" json:"header"`
	Description string `yaml:"description" json:"description,omitempty"`
	Type        string `yaml:"type" json:"type"`
	Required    bool   `yaml:"required" json:"required,omitempty"`
	// Scope is "row" (each answer row of a block; the default) or "block"
	// (asked once per block, on its first row).
	Scope   string   `yaml:"scope" json:"scope,omitempty"`
	Options []Option `yaml:"options" json:"options,omitempty"`
	// Render is how a multi question is shown: "checkboxes" (a column per
	// option; the default) or "list" (one cell of comma-separated codes).
	Render string `yaml:"render" json:"render,omitempty"`
	// Min and Max bound a scale; Unanswered is a value that means "not yet
	// answered" (it reads back as no answer).
	Min        *int `yaml:"min" json:"min,omitempty"`
	Max        *int `yaml:"max" json:"max,omitempty"`
	Unanswered *int `yaml:"unanswered" json:"unanswered,omitempty"`
	// Field names the context column a span is copied from.
	Field string `yaml:"field" json:"field,omitempty"`
	// Occurrence adds a column that says which occurrence of the span is
	// meant when the text occurs more than once.
	Occurrence bool `yaml:"occurrence" json:"occurrence,omitempty"`
	// Before names a span question whose span this one must precede (the
	// earlier text that a repetition repeats).
	Before string `yaml:"before" json:"before,omitempty"`
	// Passages is the path of the passages evidence points into: a list of
	// passages, each a list of sentences. Passages are numbered from 1,
	// sentences from 0.
	Passages        string  `yaml:"passages" json:"passages,omitempty"`
	PassageHeader   string  `yaml:"passage_header" json:"passage_header,omitempty"`
	SentencesHeader string  `yaml:"sentences_header" json:"sentences_header,omitempty"`
	Width           float64 `yaml:"width" json:"width,omitempty"`
	// Adjudicate says whether annotators' differing answers become rows
	// for an adjudicator (see Adjudicated): unset, every type but text is
	// adjudicated.
	Adjudicate *bool `yaml:"adjudicate" json:"adjudicate,omitempty"`
	Line       int   `yaml:"-" json:"-"`

	passages Path
}

// Adjudicated says whether adjudication decides the question where its
// annotators differ: as Adjudicate says, and by default for every type
// but text. Free text (a note, a comment) is not a judgement to settle:
// the gold set carries each annotator's text instead.
func (q *Question) Adjudicated() bool {
	if q.Adjudicate != nil {
		return *q.Adjudicate
	}
	return q.Type != TypeText
}

// Option is one allowed answer of a choice or multi question.
type Option struct {
	// Code is what canonical JSON records.
	Code string `yaml:"code" json:"code"`
	// Label is what the annotator picks.
	Label       string `yaml:"label" json:"label"`
	Description string `yaml:"description" json:"description,omitempty"`
	// Header is the header of this option's checkbox column (multi
	// questions rendered as checkboxes); "QUESTION HEADER: LABEL" by default.
	Header string `yaml:"header" json:"header,omitempty"`
	Line   int    `yaml:"-" json:"-"`
}

// Severities of a rule.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Rule is a conditional constraint between answers. Write it as When/Then
// ("when this holds, that must hold"), or with one of the shorthands:
// Require+When ("required when"), Allow+OnlyWhen ("only allowed when"),
// Question+Exclusive ("this option excludes every other").
type Rule struct {
	Name      string `yaml:"name" json:"name,omitempty"`
	When      *Cond  `yaml:"when" json:"when,omitempty"`
	Then      *Cond  `yaml:"then" json:"then,omitempty"`
	Require   string `yaml:"require" json:"require,omitempty"`
	Allow     string `yaml:"allow" json:"allow,omitempty"`
	OnlyWhen  *Cond  `yaml:"only_when" json:"only_when,omitempty"`
	Question  string `yaml:"question" json:"question,omitempty"`
	Exclusive string `yaml:"exclusive" json:"exclusive,omitempty"`
	Severity  string `yaml:"severity" json:"severity,omitempty"`
	Message   string `yaml:"message" json:"message,omitempty"`
	Line      int    `yaml:"-" json:"-"`

	// Check is what the sheet's Check column says while the rule does not
	// hold: a few words; the message by default.
	Check string `yaml:"check" json:"check,omitempty"`
}

// Cond is a condition on the answers of one unit (or one answer row).
// Either Question with exactly one test, or one of All, Any and Not.
type Cond struct {
	Question string `yaml:"question" json:"question,omitempty"`
	// Answered tests whether the question has an answer at all.
	Answered *bool `yaml:"answered" json:"answered,omitempty"`
	// AnyOf holds when the answer is (choice) or includes (multi) one of
	// these codes; for bool questions use "true" or "false".
	AnyOf []string `yaml:"any_of" json:"any_of,omitempty"`
	// AllOf holds when a multi answer includes every one of these codes.
	AllOf []string `yaml:"all_of" json:"all_of,omitempty"`
	// NoneOf holds when the answer is not, or includes none, of these.
	NoneOf []string `yaml:"none_of" json:"none_of,omitempty"`
	// Only holds when every code of the answer is one of these.
	Only []string `yaml:"only" json:"only,omitempty"`
	All  []*Cond  `yaml:"all" json:"all,omitempty"`
	Any  []*Cond  `yaml:"any" json:"any,omitempty"`
	Not  *Cond    `yaml:"not" json:"not,omitempty"`
	Line int      `yaml:"-" json:"-"`

	// AtLeast and AtMost hold when a scale's answer is at least (at most)
	// this number; given together, when it lies between them. Like any_of,
	// they do not hold on an unanswered question.
	AtLeast *int `yaml:"at_least" json:"at_least,omitempty"`
	AtMost  *int `yaml:"at_most" json:"at_most,omitempty"`
}

// Claim units: what an annotator takes on by writing their ID.
const (
	ClaimRow      = "row"
	ClaimInstance = "instance"
)

// Annotator configures the annotator-ID column.
type Annotator struct {
	Header string `yaml:"header" json:"header,omitempty"`
	// Position is "right" (rightmost; the default) or "left" (next to the
	// ID column).
	Position string `yaml:"position" json:"position,omitempty"`
	// Claim is "row" or "instance": whether an annotator's ID covers one
	// row or every row of an instance.
	Claim string  `yaml:"claim" json:"claim,omitempty"`
	Width float64 `yaml:"width" json:"width,omitempty"`
	Line  int     `yaml:"-" json:"-"`
}

// Bands configures the colour bands that group rows.
type Bands struct {
	// Key is the list of Format placeholders whose value groups rows; the
	// colour changes whenever it changes. Default ["{$id}"].
	Key []string `yaml:"key" json:"key,omitempty"`
	// Columns is "row" (the ID, answer and annotator columns; the default)
	// or "id" (only the ID column).
	Columns string `yaml:"columns" json:"columns,omitempty"`
	// Palette is the cycle of fill colours, as RRGGBB.
	Palette []string `yaml:"palette" json:"palette,omitempty"`
	Line    int      `yaml:"-" json:"-"`

	key []Format
}

// Hash pins the exact text of the template: the SHA-256 of its source,
// in hex. A workbook records it, so that pull reads it with the very
// template it was made with.
func (t *Template) Hash() string {
	sum := sha256.Sum256(t.Source)
	return hex.EncodeToString(sum[:])
}

// SpanSource reports whether a span question copies its spans from the
// context column cx.
func (t *Template) SpanSource(cx *Context) bool {
	if cx == nil {
		return false
	}
	for _, q := range t.Questions {
		if q.Type == TypeSpan && q.Field == cx.Name {
			return true
		}
	}
	return false
}

package records

// AnnotationSchema tags every canonical record; the JSON Schema in
// schema/annotation.schema.json describes it.
const AnnotationSchema = "annosheet.annotation/1"

// Unit statuses.
const (
	StatusComplete = "complete" // every required question answered, no error
	StatusPartial  = "partial"  // some answers, but not all required ones, or errors
	StatusEmpty    = "empty"    // nothing answered
	StatusMissing  = "missing"  // the unit's rows are not in the returned sheet, or its workbook is not there
	// StatusUnreadable: the unit's workbook is there but could not be read
	// (damaged, truncated, refused as too large); its answers are not in
	// hand, and may well exist.
	StatusUnreadable = "unreadable"
)

// InHand reports whether a record's status says its workbook was read: a
// missing or unreadable unit has nothing of its answers.
func InHand(status string) bool {
	return status != StatusMissing && status != StatusUnreadable
}

// Annotation is one canonical record: one unit as one annotator answered
// it. Values are typed: a choice's code, a multi's sorted codes, a scale's
// integer, a bool, a text; unanswered questions are absent.
type Annotation struct {
	Schema    string         `json:"schema"`
	Template  TemplateID     `json:"template"`
	Batch     string         `json:"batch"`
	Unit      string         `json:"unit"`
	Item      string         `json:"item"`
	Annotator string         `json:"annotator"`
	Status    string         `json:"status"`
	Values    map[string]any `json:"values"`
	// Shuffled says the values are still in the order the candidates were
	// shown in, not put back on their candidates (pull with the manifest).
	Shuffled bool `json:"shuffled,omitempty"`
	// OpaqueIDs says Unit and Item are the opaque IDs the workbook shows
	// (item-0001 …), not the instances' own: the study's manifest holds
	// the real ones (pull with it, or see RestoreIDs).
	OpaqueIDs bool `json:"opaque_ids,omitempty"`
	// Spans are the answer rows of a block: one entry per row with any
	// answer, in the order the block's rows were generated in, however
	// the sheet was sorted or the block moved since; a row an annotator
	// inserted or copied comes right after the row of the block above it
	// on the sheet. Each entry's Row says where it is now.
	Spans []SpanAnswer `json:"spans,omitempty"`
	// Provenance says, in a gold record (Annotator "gold"), how each
	// question's value was decided, by question name; a block's spans
	// carry their own. Annotators' records have none.
	Provenance map[string]*Provenance `json:"provenance,omitempty"`
	// Prefill says, for a unit whose answer cells started from given
	// records (generate --prefill), what the annotator did with them.
	Prefill *PrefillTrace `json:"prefill,omitempty"`
	// Control marks the record of a control unit: a unit whose answers
	// are known (generate --controls), placed among the others. Only the
	// study's manifest says which units these are.
	Control bool `json:"control,omitempty"`
	// ControlScore is, for a control unit's record, how well each scored
	// question matched the known answer, from 0 to 1, by question name.
	ControlScore map[string]float64 `json:"control_score,omitempty"`
	Source       RecordSource       `json:"source"`
	Problems     []UnitProblem      `json:"problems"`
}

// What an annotator did with one prefilled question.
const (
	PrefillKept    = "kept"    // the answer is the one given
	PrefillChanged = "changed" // another answer
	PrefillCleared = "cleared" // no answer, where one was given
)

// PrefillTrace is what an annotator did with the answers a unit started
// from: for each question the prefill answered, whether the value was
// kept, changed or cleared; for a block's spans, how many of the given
// spans were kept or changed (paired by overlap and type) or removed, and
// how many the annotator added.
type PrefillTrace struct {
	From      string            `json:"from"`
	Questions map[string]string `json:"questions"`
	Spans     *SpanTrace        `json:"spans,omitempty"`
}

// SpanTrace counts what happened to a block's given spans.
type SpanTrace struct {
	Kept    int `json:"kept"`
	Changed int `json:"changed"`
	Removed int `json:"removed"`
	Added   int `json:"added"`
}

// TemplateID names the template a record was made with.
type TemplateID struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
}

// SpanAnswer is one answer row of a block. The row's span question gives
// Field, Start, End and Text (offsets in Unicode code points, end
// exclusive; absent when there is no span, as for missing information);
// its label question gives Label and Code; its evidence question gives
// Evidence; any other answers of the row are in Values.
type SpanAnswer struct {
	Question string         `json:"question"`
	Row      int            `json:"row"`
	Field    string         `json:"field,omitempty"`
	Start    *int           `json:"start,omitempty"`
	End      *int           `json:"end,omitempty"`
	Text     string         `json:"text,omitempty"`
	Label    string         `json:"label,omitempty"`
	Code     string         `json:"code,omitempty"`
	Evidence *Evidence      `json:"evidence,omitempty"`
	Values   map[string]any `json:"values,omitempty"`
	// Provenance says how a gold span was decided.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// SourceAdjudication is the source kind of a gold record: it was made
// from an adjudication, whose manifest is its file.
const SourceAdjudication = "adjudication"

// GoldAnnotator is the annotator of a gold record: the answers an
// adjudication settled on.
const GoldAnnotator = "gold"

// How a gold value was decided.
const (
	// Unanimous: every annotator who answered gave it (at least
	// --min-agreement of them).
	ProvenanceUnanimous = "unanimous"
	// Majority: more annotators gave it than any other answer, and no
	// adjudicator decided otherwise (adjudicate --resolve majority, or a
	// suggestion accepted as it stood).
	ProvenanceMajority = "majority"
	// Adjudicated: an adjudicator chose it in the adjudication sheet.
	ProvenanceAdjudicated = "adjudicated"
	// Unresolved: the annotators disagree and nobody has decided; the
	// value is absent.
	ProvenanceUnresolved = "unresolved"
	// Carried: a question the template does not adjudicate
	// (free text, by default) on which the annotators differ. The gold
	// record has no value for it; its provenance carries each
	// annotator's answer.
	ProvenanceCarried = "carried"
)

// Provenance is how one gold value was decided.
type Provenance struct {
	Kind string `json:"kind"` // unanimous, majority, adjudicated or unresolved
	// Agreeing of Annotators gave the value kept (for unanimous and
	// majority; for adjudicated, those whose answer the adjudicator kept).
	Agreeing   int `json:"agreeing"`
	Annotators int `json:"annotators"`
	// Adjudicated values: who decided, why, and where.
	Adjudicator string `json:"adjudicator,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Note        string `json:"note,omitempty"`
	// Decision is the adjudication row's ID (d0001 …); Cell where it was
	// read or is still to be decided (Gaps!H4).
	Decision string `json:"decision,omitempty"`
	Cell     string `json:"cell,omitempty"`
	// Answers, for carried, are the answers of the annotators who gave
	// one, in the order of their IDs.
	Answers []CarriedAnswer `json:"answers,omitempty"`
}

// Settled says whether the gold record holds the one answer decided
// (none at all being an answer): not when it is unresolved, nor when it
// carries each annotator's answer instead.
func (p *Provenance) Settled() bool {
	return p.Kind != ProvenanceUnresolved && p.Kind != ProvenanceCarried
}

// CarriedAnswer is one annotator's answer, as a gold record carries it.
type CarriedAnswer struct {
	Annotator string `json:"annotator"`
	Value     any    `json:"value"`
}

// SpanValue is the answer to a span question kept in Values: the text as
// copied, and where it is in the field when it was found there.
type SpanValue struct {
	Field string `json:"field"`
	Start *int   `json:"start,omitempty"`
	End   *int   `json:"end,omitempty"`
	Text  string `json:"text"`
}

// Evidence points at sentences of a passage: passages numbered from 1,
// sentences from 0 (the title).
type Evidence struct {
	Passage   int   `json:"passage"`
	Sentences []int `json:"sentences"`
}

// RecordSource says where a record was read from.
type RecordSource struct {
	Kind  string `json:"kind"`
	File  string `json:"file"`
	Sheet string `json:"sheet"`
	Rows  []int  `json:"rows"`
}

// UnitProblem is a problem of one unit, as a record carries it.
type UnitProblem struct {
	Severity string `json:"severity"`
	Cell     string `json:"cell,omitempty"` // Sheet!A1
	Message  string `json:"message"`
}

// Package manifest is the coordinator's record of a study: which template
// and inputs made which workbooks, which units each holds, and the keys
// that must never reach annotators (who the anonymised evaluators are,
// which real IDs the opaque ones stand for).
// generate writes it next to the workbooks; pull and export read it.
//
//	m, err := manifest.Read("study/manifest.json")
//	if err != nil {
//		return err
//	}
//	fmt.Println(m.Template.Name, len(m.Batches))
package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/internal/jsonkeys"
)

// Schema tags the manifest format.
const Schema = "annosheet.manifest/1"

// FileName is the manifest's name in a study folder.
const FileName = "manifest.json"

// MaxSize is the largest manifest Read accepts. A study of 100,000
// instances, each for three annotators in 300 workbooks, with ids of some
// 45 characters and shuffled orders, has a manifest of 58 MB, most of it
// the units of each batch; the bound leaves four times that room, and
// keeps a hostile file from exhausting memory.
const MaxSize = 256 << 20

// ErrNotManifest is returned for a JSON file that is not a manifest.
var ErrNotManifest = errors.New("not an annosheet manifest")

// Manifest records one generate run.
type Manifest struct {
	Schema   string   `json:"schema"`
	Study    string   `json:"study"`
	Created  string   `json:"created"`
	Format   string   `json:"format"` // xlsx or gsheets
	Template Template `json:"template"`
	// InputArgs are the inputs as given to generate (files or folders);
	// Inputs every file read, with its hash. Their paths are relative to
	// the manifest's folder (absolute where they cannot be), so that a
	// study moved with its inputs finds them.
	InputArgs []string `json:"input_args"`
	Inputs    []Input  `json:"inputs"`
	// InputFormat and InputSheet are how the inputs were read, when
	// generate was told (--input-format, --input-sheet): reading them
	// again reads them so.
	InputFormat string `json:"input_format,omitempty"`
	InputSheet  string `json:"input_sheet,omitempty"`
	// Dir is the absolute path of the study's folder when it was made,
	// so that a study moved without its inputs still finds them.
	Dir  string `json:"dir,omitempty"`
	Seed uint64 `json:"seed"`
	// Assignment is how the instances were shared out.
	Assignment *Assignment `json:"assignment,omitempty"`
	Batches    []Batch     `json:"batches"`
	// Keys maps each anonymised field to its key, real value -> label.
	// Keep the manifest from annotators.
	Keys map[string]map[string]string `json:"keys,omitempty"`
	// Orders gives, for a template that shuffles candidates, each
	// instance's candidate codes in the order shown.
	Orders map[string][]string `json:"orders,omitempty"`
	// OpaqueIDs maps, for a template that shows opaque IDs (rows
	// id_display: opaque), each opaque ID the workbooks show to the real
	// unit or instance ID. Keep the manifest from annotators.
	OpaqueIDs map[string]string `json:"opaque_ids,omitempty"`
	// Prefill is the records the workbooks' answer cells started from
	// (generate --prefill), when they did.
	Prefill *Prefill `json:"prefill,omitempty"`
	// Controls are the units whose answers are known, hidden among the
	// others in every batch (generate --controls). Only the manifest says
	// which they are: keep it from annotators.
	Controls *Controls `json:"controls,omitempty"`
}

// Controls records a study's control units: the gold file they came from
// (as Inputs record theirs) and its records' annotator, how many join
// each batch, and each unit with its known answers.
type Controls struct {
	Input
	Annotator string        `json:"annotator"`
	PerBatch  int           `json:"per_batch"`
	Units     []ControlUnit `json:"units"`
}

// ControlUnit is a control unit, its instance, and its gold record as
// canonical JSON.
type ControlUnit struct {
	Unit   string          `json:"unit"`
	Item   string          `json:"item"`
	Record json.RawMessage `json:"record"`
}

// Prefill records the given answers a study's workbooks were prefilled
// with: the file (as Inputs record theirs), whose records they were, how
// they were shown, and how many units got them.
type Prefill struct {
	Input
	Annotator string `json:"annotator"`
	As        string `json:"as"`
	Units     int    `json:"units"`
}

// PrefillSuggestions is Prefill.As for suggestions shown beside empty
// answer cells (generate --prefill-as suggestions) rather than in them.
const PrefillSuggestions = "suggestions"

// Template pins the template a study used, with its full text so that the
// study can be read back even if the template file changes.
type Template struct {
	Name    string            `json:"name"`
	Version int               `json:"version"`
	SHA256  string            `json:"sha256"`
	Params  map[string]string `json:"params,omitempty"`
	Source  string            `json:"source"`
}

// Input is one input file and the hash of its content.
type Input struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Assignment is how a study's instances were shared out: each to Overlap
// of the Annotators (none: shared workbooks), in batches of at most
// BatchSize units (0: no bound).
type Assignment struct {
	Annotators []string `json:"annotators,omitempty"`
	Overlap    int      `json:"overlap"`
	BatchSize  int      `json:"batch_size,omitempty"`
}

// Batch is one workbook: a file (XLSX) or a spreadsheet (Google Sheets).
type Batch struct {
	ID string `json:"id"`
	// Annotator is the annotator the batch was made for; "" for a shared
	// workbook, where annotators claim rows.
	Annotator   string       `json:"annotator,omitempty"`
	File        string       `json:"file,omitempty"` // relative to the manifest
	Spreadsheet *Spreadsheet `json:"spreadsheet,omitempty"`
	Rows        int          `json:"rows"`
	Units       []Unit       `json:"units"`
	// Controls are the control instances among the batch's units
	// (Manifest.Controls), in the order the workbook shows them.
	Controls []string `json:"controls,omitempty"`
}

// Statuses of a spreadsheet.
const (
	// Incomplete: created, but generate did not finish it; running the
	// same generate again finishes it in place.
	Incomplete = "incomplete"
	Complete   = "complete"
)

// Spreadsheet is a batch's Google spreadsheet.
type Spreadsheet struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Status string `json:"status"`
	// Endpoint is the Sheets API it lives on when not Google's (a fake,
	// for dry runs).
	Endpoint string `json:"endpoint,omitempty"`
}

// Unit is a unit of annotation and the item (instance) it belongs to.
type Unit struct {
	ID   string `json:"unit"`
	Item string `json:"item"`
}

// MaxBatchID bounds a batch ID, which goes into file names.
const MaxBatchID = 64

// ValidBatchID reports whether s can be a batch ID: letters, digits, '-'
// and '_', at most MaxBatchID of them (it names a file on every system).
func ValidBatchID(s string) bool {
	if s == "" || len(s) > MaxBatchID {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// HashFile returns the SHA-256 and size of a file, read as a stream. A
// named pipe or a device, which a manifest may name, is refused without
// being waited on.
func HashFile(path string) (Input, error) {
	f, err := boundedread.Open(path)
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Input{}, fmt.Errorf("hash %s: %w", path, err)
	}
	return Input{Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}

// Encode writes m as indented JSON.
func (m *Manifest) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// Read loads a manifest file. A file larger than MaxSize is an error
// wrapping boundedread.ErrTooLarge; one that is not a regular file (a
// named pipe, say) is refused without waiting on it.
func Read(path string) (*Manifest, error) {
	b, err := boundedread.ReadFile(path, MaxSize, "a manifest")
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrNotManifest, err)
	}
	// A key given twice (a hand edit) is read by encoding/json as its
	// last: refused instead, by its line.
	if d, ok := jsonkeys.Duplicate(b, jsonkeys.Never); ok {
		return nil, fmt.Errorf("%s:%d: %w: %s", path, lineOf(b, d.Offset), ErrNotManifest, d)
	}
	if m.Schema != Schema {
		return nil, fmt.Errorf("%s: %w (schema %q, want %q)", path, ErrNotManifest, m.Schema, Schema)
	}
	return &m, nil
}

// lineOf is the 1-based line of a byte offset in data.
func lineOf(data []byte, offset int) int {
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

package adjudicate

import (
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/manifest"
)

// ManifestFormat tags an adjudication's manifest; ManifestFile is its
// name in the adjudication's folder.
const (
	ManifestFormat = "annosheet.adjudication/1"
	ManifestFile   = "adjudication.json"
)

// Manifest records an adjudication: the template, the key to the
// annotators' neutral names, the answers accepted without an adjudicator,
// every item to decide and the workbooks they are in. It is the
// coordinator's: keep it from adjudicators, who see only neutral names.
type Manifest struct {
	Format   string            `json:"format"`
	ID       string            `json:"id"`
	Created  string            `json:"created"`
	Template manifest.Template `json:"template"`
	// Study is the study's manifest, relative to this file's folder, when
	// the records came from a study: its inputs give the context shown
	// and the texts edited spans are found in.
	Study   string   `json:"study,omitempty"`
	Sources []string `json:"sources"`
	// MinAgreement is --min-agreement (0: all who answered).
	MinAgreement int `json:"min_agreement"`
	// Annotators and Names are the key: Names[k] is how Annotators[k] is
	// shown.
	Annotators []string    `json:"annotators"`
	Names      []string    `json:"names"`
	Workbooks  []BookRef   `json:"workbooks"`
	Units      []*Accepted `json:"units"`
	Items      []*Item     `json:"items"`
	// Saved are the cells adjudicators had filled when adjudicate last
	// read the workbooks, by item ID and column key: what a workbook holds
	// while adjudicate rewrites it, should the rewrite not finish.
	Saved map[string]map[string]backend.ReadCell `json:"saved,omitempty"`
}

// BookRef is one adjudication workbook: a file, relative to the manifest,
// or a spreadsheet.
type BookRef struct {
	Adjudicator string                `json:"adjudicator"`
	Kind        string                `json:"kind"` // xlsx or gsheets
	File        string                `json:"file,omitempty"`
	Spreadsheet *manifest.Spreadsheet `json:"spreadsheet,omitempty"`
	Items       int                   `json:"items"`
	// Incomplete says adjudicate began to write the workbook and has not
	// finished: its decisions are those in Saved.
	Incomplete bool `json:"incomplete,omitempty"`
}

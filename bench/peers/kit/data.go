package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/benchdata"
	"github.com/annosheet/annosheet/xlsx"
)

// dataCmd makes the inputs of one size: the legal-gaps records
// (input.jsonl), the workbook of them filled in as an annotator would
// (filled.xlsx, annosheet's own form, inline strings), its copy in the
// form Excel and LibreOffice save (filled-sst.xlsx, shared strings), and
// where the readers find the answers in it (columns.json).
func dataCmd(args []string, stdout io.Writer) error {
	fs := flags("data")
	dir := fs.String("dir", "", "output `DIR`")
	rows := fs.Int("rows", 1000, "records")
	text := fs.String("text", "prose", "kind of text: prose or repetitive")
	if err := fs.Parse(args); err != nil {
		return err
	}
	kind, err := benchdata.ParseTextKind(*text)
	if err != nil {
		return err
	}
	if *dir == "" || *rows < 1 {
		return fmt.Errorf("data: -dir and -rows of at least 1 are needed")
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	p, err := benchdata.FilledLegalPlanKind(*dir, *rows, backend.XLSXCellLimit, kind)
	if err != nil {
		return err
	}
	filled := filepath.Join(*dir, "filled.xlsx")
	if err := writeBook(p, filled); err != nil {
		return err
	}
	if err := benchdata.SharedStringsCopy(filled, filepath.Join(*dir, "filled-sst.xlsx")); err != nil {
		return err
	}
	cols, err := legalColumns()
	if err != nil {
		return err
	}
	b, err := json.Marshal(cols)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*dir, "columns.json"), b, 0o644); err != nil {
		return err
	}
	in, err := benchdata.LegalInputKind(*dir, *rows, kind) // made by FilledLegalPlanKind
	if err != nil {
		return err
	}
	return os.Rename(in, filepath.Join(*dir, "input.jsonl"))
}

func writeBook(p *backend.Plan, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := xlsx.Write(p, f, xlsx.WriteOptions{}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

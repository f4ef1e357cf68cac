//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// TestAdjudicateSavedWhileRunning runs adjudicate again, as its own
// process, over an adjudication whose workbook the adjudicator saves a
// decision in while the run reads it: the process is paused as soon as it
// has the workbook open, the decision is saved, and the process goes on.
// The run must refuse to replace the workbook, naming it, and leave the
// decision and the manifest as they are; the next run keeps the decision.
func TestAdjudicateSavedWhileRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and adjudicates a large study")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := buildCLI(t, dir)
	// Enough disagreements that reading the workbook takes a while.
	var lines []string
	for k := range 3000 {
		lines = append(lines, fmt.Sprintf("u%04d ann1 1", k), fmt.Sprintf("u%04d ann2 2", k))
	}
	recs := legalRecords(t, dir, "recs.jsonl", lines...)
	adj := filepath.Join(dir, "adj")
	adjudicateCLI(t, 0, adj, recs)
	book := filepath.Join(adj, "adjudicate-lead.xlsx")
	man := filepath.Join(adj, "adjudication.json")
	manBefore := readBytes(t, man)

	p := startCLI(t, bin, "adjudicate", recs, "--out", adj, "--adjudicator", "lead")
	cmd, exited, stdout, stderr := p.cmd, p.exited, &p.stdout, &p.stderr
	if !waitOpen(cmd.Process.Pid, book, exited) {
		t.Fatalf("the run never had %s open\n%s%s", book, stdout.String(), stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Saved as spreadsheet applications save: a new file put in the
	// old one's place.
	f, err := excelize.OpenFile(book)
	if err != nil {
		t.Fatal(err)
	}
	decide(t, f, "d0001", "Or use", "Annotator 2")
	if err := f.SaveAs(book + ".saving.xlsx"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Rename(book+".saving.xlsx", book); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatal("adjudicate still runs a minute later")
	}
	if code := cmd.ProcessState.ExitCode(); code != exitFailure || !strings.Contains(stderr.String(), book+": changed since it was read") {
		t.Errorf("exit %d, want %d naming %s as changed:\n%s%s", code, exitFailure, book, stdout.String(), stderr.String())
	}
	f, err = excelize.OpenFile(book)
	if err != nil {
		t.Fatal(err)
	}
	if got := decision(t, f, "d0001", "Or use"); got != "Annotator 2" {
		t.Errorf("the decision saved while the run read the workbook: %q", got)
	}
	f.Close()
	if !bytes.Equal(readBytes(t, man), manBefore) {
		t.Error("the refused run rewrote the manifest")
	}
	if out, _ := adjudicateCLI(t, 0, adj, recs); !strings.Contains(out, "1 decided already and kept") {
		t.Errorf("the next run:\n%s", out)
	}
}

// waitOpen waits until process pid has path open, and reports whether it
// did before the process ended.
func waitOpen(pid int, path string, exited <-chan error) bool {
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	for {
		select {
		case <-exited:
			return false
		default:
		}
		ents, _ := os.ReadDir(fds)
		for _, e := range ents {
			if l, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && l == path {
				return true
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// decide writes a value under a header on the Gaps sheet, in the row of
// a decision ID; decision reads it.
func decide(t *testing.T, f *excelize.File, id, header, value string) {
	t.Helper()
	cell := decisionCell(t, f, id, header)
	if err := f.SetCellStr("Gaps", cell, value); err != nil {
		t.Fatal(err)
	}
}

func decision(t *testing.T, f *excelize.File, id, header string) string {
	t.Helper()
	v, err := f.GetCellValue("Gaps", decisionCell(t, f, id, header))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func decisionCell(t *testing.T, f *excelize.File, id, header string) string {
	t.Helper()
	rows, err := f.GetRows("Gaps")
	if err != nil || len(rows) == 0 {
		t.Fatalf("Gaps: %v", err)
	}
	col := -1
	for c, h := range rows[0] {
		if h == header {
			col = c
		}
	}
	for r, row := range rows {
		if len(row) > 0 && row[0] == id && col >= 0 {
			name, _ := excelize.CoordinatesToCellName(col+1, r+1)
			return name
		}
	}
	t.Fatalf("Gaps: no %s under %q", id, header)
	return ""
}

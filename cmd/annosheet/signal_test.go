//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/annosheet/annosheet/testkit/googletest"

	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

// Shape of the large study the signal test interrupts: enough long
// records that each workbook takes a while to write, in several batches,
// so that a run stopped while writing its second has more to make.
const (
	signalRecords   = 900
	signalBatchSize = 150
	signalBatches   = 6 // 300 instances for each of A, B and C: 150 + 150
)

// process is the command, run as a process of its own, and what it
// writes.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	exited         chan error // its end, once
}

// startCLI starts the built command bin with args, as a user would; it
// is killed when the test ends, if it has not ended.
func startCLI(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), exited: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

// TestGenerateSignals stops a large generate, run as its own process,
// with SIGINT and with SIGTERM while it is writing a workbook. The process
// must end soon, saying what it left; only complete workbooks and a
// manifest that records them may be left; and the same command must then
// finish the study.
func TestGenerateSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and writes a large study")
	}
	t.Parallel()
	tmp := t.TempDir()
	bin := buildCLI(t, tmp)
	in := filepath.Join(tmp, "large.jsonl")
	writeLargeLegalInput(t, in, signalRecords)

	for name, sig := range map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "study")
			args := []string{"generate", "-t", "legal-gaps", "-i", in, "-o", out,
				"--annotators", "A,B,C", "--batch-size", strconv.Itoa(signalBatchSize)}

			p := startCLI(t, bin, args...)
			cmd, exited, stderr := p.cmd, p.exited, &p.stderr

			waitMidWrite(t, out, exited)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			signalled := time.Now()
			var err error
			select {
			case err = <-exited:
				t.Logf("exited %v after %v", sig, time.Since(signalled).Round(time.Millisecond))
			case <-time.After(10 * time.Second):
				t.Fatalf("generate still runs 10 s after %v\nstderr: %s", sig, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
				t.Fatalf("after %v: %v, want exit status %d\nstderr: %s", sig, err, exitFailure, stderr.String())
			}

			// The message says how many workbooks are made, where they
			// are recorded, and that the same command goes on.
			msg := regexp.MustCompile(`interrupted \(context canceled\): (\d+) of (\d+) workbooks are made and recorded in (.+); the same command makes the rest`)
			m := msg.FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("stderr does not say what was left:\n%s", stderr.String())
			}
			made, _ := strconv.Atoi(m[1])
			if total, _ := strconv.Atoi(m[2]); total != signalBatches || made < 1 || made >= signalBatches {
				t.Fatalf("stderr says %s of %s workbooks are made, want 1 to %d of %d", m[1], m[2], signalBatches-1, signalBatches)
			}
			t.Logf("%d of %d workbooks made", made, signalBatches)
			manPath := filepath.Join(out, manifest.FileName)
			if m[3] != manPath {
				t.Errorf("stderr names the manifest %s, want %s", m[3], manPath)
			}

			// Only the manifest and complete workbooks are in the
			// folder: no temporary file of the workbook being written.
			books := folderBooks(t, out)
			if len(books) != made {
				t.Errorf("the folder holds %d workbooks %v; stderr says %d are made", len(books), books, made)
			}
			man, err := manifest.Read(manPath)
			if err != nil {
				t.Fatalf("the interrupted run left no manifest: %v", err)
			}
			if len(man.Batches) != signalBatches {
				t.Fatalf("the manifest lists %d batches, want %d", len(man.Batches), signalBatches)
			}
			var recorded []string
			for _, b := range man.Batches {
				_, err := os.Lstat(filepath.Join(out, b.File))
				switch there := err == nil; {
				case there && b.Rows == 0:
					t.Errorf("batch %s: %s is there but the manifest records no rows", b.ID, b.File)
				case !there && b.Rows != 0:
					t.Errorf("batch %s: the manifest records %d rows of %s, which is not there", b.ID, b.Rows, b.File)
				case there:
					recorded = append(recorded, b.File)
				}
			}
			slices.Sort(recorded)
			if !slices.Equal(recorded, books) {
				t.Errorf("the manifest records %v as made; the folder holds %v", recorded, books)
			}

			// The same command finishes the study, keeping what the
			// interrupted run made.
			var paths []string
			for _, b := range books {
				paths = append(paths, filepath.Join(out, b))
			}
			before := snapshot(t, paths...)
			code, rout, rerr := runBinary(t, bin, args...)
			if code != exitOK {
				t.Fatalf("the same command again: exit %d\n%s", code, rerr)
			}
			if n := strings.Count(rerr, "kept "); n != made {
				t.Errorf("the same command again kept %d workbooks, want %d:\n%s", n, made, rerr)
			}
			if n := strings.Count(rout, "wrote "+filepath.Join(out, "legal-gaps-")); n != signalBatches-made {
				t.Errorf("the same command again wrote %d workbooks, want %d:\n%s", n, signalBatches-made, rout)
			}
			unchanged(t, before)
			if books := folderBooks(t, out); len(books) != signalBatches {
				t.Errorf("after the same command again the folder holds %d workbooks %v, want %d", len(books), books, signalBatches)
			}

			// Every workbook reads back: each instance once, unanswered.
			code, pout, perr := runBinary(t, bin, "pull", out+string(filepath.Separator))
			want := fmt.Sprintf("pulled %d records from %d workbooks: 0 complete, 0 partial, %d empty, 0 missing; 0 errors, 0 warnings", signalRecords, signalBatches, signalRecords)
			if code != exitOK || !strings.Contains(perr, want) {
				t.Fatalf("pull: exit %d, want %d and %q:\n%s", code, exitOK, want, perr)
			}
			units := map[string]bool{}
			sc := bufio.NewScanner(strings.NewReader(pout))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var r struct{ Unit, Status string }
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("pull wrote %q: %v", sc.Text(), err)
				}
				if r.Status != "empty" || units[r.Unit] {
					t.Errorf("unit %s: status %s, seen before %v", r.Unit, r.Status, units[r.Unit])
				}
				units[r.Unit] = true
			}
			if len(units) != signalRecords {
				t.Errorf("pull gave %d units, want %d", len(units), signalRecords)
			}
		})
	}
}

// writeLargeLegalInput writes n legal-gaps records, the examples' records
// over and over under new IDs.
func writeLargeLegalInput(t *testing.T, path string, n int) {
	t.Helper()
	b, err := os.ReadFile("../../examples/legal-gaps.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for line := range strings.Lines(string(b)) {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := range n {
		r := recs[i%len(recs)]
		r["id"] = fmt.Sprintf("r%05d", i)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// waitMidWrite waits until generate has made a workbook in dir and is
// writing the next one (its temporary file is there). It fails when the
// process ends first or nothing happens for a long time.
func waitMidWrite(t *testing.T, dir string, exited <-chan error) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		var made, writing bool
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			name := e.Name()
			made = made || !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".xlsx")
			writing = writing || strings.HasPrefix(name, ".") && strings.Contains(name, ".xlsx.tmp-")
		}
		if made && writing {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("generate ended (%v) before it was seen writing its second workbook: make the input larger", err)
		case <-deadline:
			t.Fatal("generate made no workbook in 2 minutes")
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// folderBooks lists the files of a study's folder other than its
// manifest, failing on anything that is not a workbook (a temporary file
// left behind, say).
func folderBooks(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var books []string
	for _, e := range es {
		switch name := e.Name(); {
		case name == manifest.FileName:
		case !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".xlsx") && e.Type().IsRegular():
			books = append(books, name)
		default:
			t.Errorf("%s: left in the study's folder", filepath.Join(dir, name))
		}
	}
	slices.Sort(books)
	return books
}

// runBinary runs the built command and returns its exit code and output.
func runBinary(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", bin, err)
	}
	return code, out.String(), errb.String()
}

// TestGSheetsStoppedCreate: a run stopped after Google made its first
// spreadsheet but before the answer came back (it was lost, and Ctrl-C
// came before the run could look for the spreadsheet) leaves it
// unrecorded; the same command finds it and finishes it instead of making
// another.
func TestGSheetsStoppedCreate(t *testing.T) {
	googletest.NoAccount(t)
	fake, err := sheetsfake.New(sheetsfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Ctrl-C as soon as the spreadsheet is made, before its answer is
	// back.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fake.ServeHTTP(w, r)
		if r.Method == http.MethodPost && r.URL.Path == "/drive/v3/files" {
			cancel()
		}
	}))
	t.Cleanup(srv.Close)
	fake.SetBase(srv.URL)
	fake.Inject(sheetsfake.Fault{Match: "POST /drive/v3/files", Status: 503, Lost: true})

	dir := filepath.Join(t.TempDir(), "study")
	args := []string{"annosheet", "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "--format", "gsheets", "--endpoint", srv.URL, "--no-auth"}
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	if want := "0 of 1 workbooks are made and recorded in " + filepath.Join(dir, manifest.FileName) + "; the same command makes the rest"; code != exitFailure || !strings.Contains(stderr.String(), want) {
		t.Fatalf("stopped run: exit %d, want %d and %q:\n%s", code, exitFailure, want, stderr.String())
	}
	orphans := fake.Spreadsheets()
	if len(orphans) != 1 {
		t.Fatalf("the stopped run left %d spreadsheets, want the 1 whose answer was lost", len(orphans))
	}
	code, out, errs := runCLI(t, args[1:]...)
	if code != exitOK {
		t.Fatalf("the same command again: exit %d\n%s", code, errs)
	}
	if got := fake.Spreadsheets(); !slices.Equal(got, orphans) {
		t.Errorf("the fake holds %v, want only %v", got, orphans)
	}
	m := readManifest(t, dir)
	if sp := m.Batches[0].Spreadsheet; sp == nil || sp.ID != orphans[0] || sp.Status != manifest.Complete {
		t.Errorf("the manifest records %+v, want %s complete\n%s", sp, orphans[0], out)
	}
}

package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/bombs"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// The hostile-input suite: files a stranger, a damaged download or a
// careless edit may hand annosheet, each made on the fly. Every case runs
// the real binary in a process of its own, with a temporary folder of its
// own, and checks what a user would: the exit status, the message, that
// nothing panicked or hung, that the peak memory stayed bounded whatever
// the file claims to hold, and that nothing was left in the temporary
// folder.

// hostileRSS bounds a case's peak resident memory. The bombs below
// inflate to a gigabyte or more; a small study's pull needs some tens of
// megabytes.
const hostileRSS = 384 << 20

// hostileTimeout is how long a case may run: a hang fails it.
const hostileTimeout = 2 * time.Minute

// bomb is how much the bombs inflate to: more than hostileRSS, so that a
// reader that held what it inflated would fail the bound.
const bomb = 1 << 30

type hostileCase struct {
	name string
	// setup makes the case's files in dir and gives the command line.
	setup func(t *testing.T, dir string) []string
	code  int
	// stderr must match each of these (regular expressions).
	stderr []string
	// check, when set, looks further at what the run left.
	check func(t *testing.T, dir, stdout, stderr string)
}

func TestHostileInputs(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the suite measures peak memory through Linux's rusage")
	}
	bin := buildCLI(t, t.TempDir())
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := c.setup(t, dir)
			tmp := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), hostileTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"))
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("annosheet %s hung (killed after %s)", strings.Join(args, " "), hostileTimeout)
			}
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			stderr := errb.String()
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, stderr)
			}
			for _, want := range c.stderr {
				if !regexp.MustCompile(want).MatchString(stderr) {
					t.Errorf("stderr does not match %q:\n%s", want, stderr)
				}
			}
			for _, crash := range []string{"panic:", "fatal error:", "goroutine "} {
				if strings.Contains(stderr, crash) {
					t.Errorf("a crash (%q):\n%s", crash, stderr)
				}
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				if peak := ru.Maxrss << 10; peak > hostileRSS {
					t.Errorf("peak memory %d MiB, over the %d MiB bound", peak>>20, hostileRSS>>20)
				}
			}
			left, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range left {
				t.Errorf("left in the temporary folder: %s", e.Name())
			}
			if c.check != nil {
				c.check(t, dir, out.String(), stderr)
			}
		})
	}
}

func hostileCases() []hostileCase {
	return []hostileCase{
		{
			name: "a template whose aliases expand a billion-fold",
			setup: func(t *testing.T, dir string) []string {
				write(t, filepath.Join(dir, "bomb.yaml"), string(laughsTemplate(t)))
				return []string{"templates", "check", "bomb.yaml"}
			},
			code:   exitFailure,
			stderr: []string{`bomb\.yaml`, `expands to too many values`},
		},
		{
			name: "the same template carried in a returned workbook",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				editBook(t, book, func(f *excelize.File) {
					setMeta(t, f, "template", string(laughsTemplate(t)))
				})
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `expands to too many values`, `5 unreadable`},
		},
		{
			name: "a sheet that inflates to a gigabyte, and says so",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				rezip(t, book, annotatePart, func(w io.Writer) { fill(t, w, bomb) }, false)
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `beyond annosheet's limits: part [^ ]+ says it inflates to`, annotatePart, `5 unreadable`},
		},
		{
			name: "a sheet that inflates to a gigabyte, and says it is small",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				rezip(t, book, annotatePart, func(w io.Writer) { fill(t, w, bomb) }, true)
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			// The zip's own size check stops the read at the size claimed.
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `damaged|inflates beyond`, annotatePart, `5 unreadable`},
		},
		{
			name: "one shared string of a gigabyte",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				rezip(t, book, "xl/sharedStrings.xml", func(w io.Writer) {
					io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>`)
					fill(t, w, bomb)
					io.WriteString(w, `</t></si></sst>`)
				}, false)
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `beyond annosheet's limits: part [^ ]+ says it inflates to`, `sharedStrings`, `5 unreadable`},
		},
		{
			name: "a byte flipped in the compressed Annotate sheet",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				flipByte(t, book, annotatePart)
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `damaged`, annotatePart, `5 unreadable`},
			check: func(t *testing.T, dir, _, _ string) {
				// Every unit of the other workbook is read, none of this
				// one is taken for empty.
				for _, r := range readRecords(t, read(t, filepath.Join(dir, "out.jsonl"))) {
					if want := map[bool]string{true: records.StatusUnreadable, false: records.StatusEmpty}[r.Batch == "ak-b01"]; r.Status != want {
						t.Errorf("%s/%s: %s, want %s", r.Batch, r.Unit, r.Status, want)
					}
				}
			},
		},
		{
			name: "an entity declaration in the Annotate sheet",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				editPart(t, book, annotatePart, func(b []byte) []byte {
					return bytes.Replace(b, []byte("<worksheet"), []byte(`<!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa">]><worksheet`), 1)
				})
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `declares a DTD or entities`, `5 unreadable`},
		},
		{
			name: "the zip cut short",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				b := readBytes(t, book)
				write(t, book, string(b[:len(b)*2/3]))
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `damaged`, `5 unreadable`},
		},
		{
			name: "a cell of ten megabytes",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				editPart(t, book, annotatePart, func(b []byte) []byte {
					huge := `<row r="1000"><c r="A1000" t="inlineStr"><is><t>` + strings.Repeat("a", 10<<20) + `</t></is></c></row></sheetData>`
					return bytes.Replace(b, []byte("</sheetData>"), []byte(huge), 1)
				})
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `beyond annosheet's limits`, `A1000`, `5 unreadable`},
		},
		{
			name: "booleans, dates and formulas without a value in answer cells",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				cells := map[string]string{}
				w, err := goldtest.OpenWorkbook(book)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					name, key string
					unit      int
				}{{"tick", "q:gaps=2", 0}, {"dated note", "q:note", 0}, {"dated box", "q:gaps=1", 1}, {"formula", "q:note", 2}} {
					if cells[c.name], err = w.Cell(w.Rows[w.Units[c.unit]][0], c.key); err != nil {
						t.Fatal(err)
					}
				}
				w.Save()
				for i := 0; i < 3; i++ {
					answer(t, book, "annotator", "ak", i)
				}
				editBook(t, book, func(f *excelize.File) {
					date := time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)
					f.SetCellBool(backend.SheetAnnotate, cells["tick"], true)
					f.SetCellValue(backend.SheetAnnotate, cells["dated note"], date)
					f.SetCellValue(backend.SheetAnnotate, cells["dated box"], date)
					f.SetCellFormula(backend.SheetAnnotate, cells["formula"], "1+1")
				})
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{
				`legal-gaps-ak-b01\.xlsx: Annotate![A-Z]+3: the cell shows the date 2024-03-05[^,]*, not a checkbox value`,
				`legal-gaps-ak-b01\.xlsx: Annotate![A-Z]+4: a formula with no saved value \(=1\+1\): open the workbook in a spreadsheet application and save it, or type the value`,
			},
			check: func(t *testing.T, dir, _, _ string) {
				for _, r := range readRecords(t, read(t, filepath.Join(dir, "out.jsonl"))) {
					if r.Batch == "ak-b01" && r.Unit == "gpt4o-11" {
						// A date in a text cell is the text shown.
						if note, _ := r.Values["note"].(string); !strings.HasPrefix(note, "2024-03-05") || r.Status != records.StatusComplete {
							t.Errorf("%s: %s, note %q", r.Unit, r.Status, r.Values["note"])
						}
					}
				}
			},
		},
		{
			name: "TRUE in a 1-5 scale",
			setup: func(t *testing.T, dir string) []string {
				if code, _, errs := runCLI(t, "generate", "-t", "preference-likert", "-i", prefData, "-o", filepath.Join(dir, "study")); code != 0 {
					t.Fatalf("generate: exit %d: %s", code, errs)
				}
				books, _ := filepath.Glob(filepath.Join(dir, "study", "*.xlsx"))
				answer(t, books[0], "q:first_prediction_likert", true, 0)
				answer(t, books[0], "q:second_prediction_likert", false, 0)
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{
				`TRUE is a true/false value, not a whole number from 1 to 5`,
				`FALSE is a true/false value, not a whole number from 1 to 5`,
			},
		},
		{
			name: "a unit taken out of the workbook's metadata",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				editBook(t, book, func(f *excelize.File) {
					rows, err := f.GetRows(backend.SheetMeta)
					if err != nil {
						t.Fatal(err)
					}
					for i, r := range rows {
						if len(r) > 1 && r[0] == "unit" {
							if err := f.RemoveRow(backend.SheetMeta, i+1); err != nil {
								t.Fatal(err)
							}
							break
						}
					}
					wb := metaText(t, f, "workbook")
					setMeta(t, f, "workbook", strings.Replace(wb, `"units":5`, `"units":4`, 1))
				})
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `does not list 1 unit that the manifest lists`, `1 missing`},
		},
		{
			name: "answers typed into a copy of the Annotate sheet",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				editBook(t, book, func(f *excelize.File) {
					i, err := f.NewSheet("Annotate (2)")
					if err != nil {
						t.Fatal(err)
					}
					src, _ := f.GetSheetIndex(backend.SheetAnnotate)
					if err := f.CopySheet(src, i); err != nil {
						t.Fatal(err)
					}
					f.SetCellValue("Annotate (2)", "K2", "ak")
				})
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`sheet "Annotate \(2\)" looks like a copy of Annotate`},
		},
		{
			name: "answers in a renamed Annotate sheet",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				answer(t, book, "q:gaps=2", true, 0)
				answer(t, book, "annotator", "ak", 0)
				editBook(t, book, func(f *excelize.File) {
					if err := f.SetSheetName(backend.SheetAnnotate, "Mine"); err != nil {
						t.Fatal(err)
					}
				})
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`the sheet Annotate was renamed "Mine"; it is read as Annotate`, `1 complete`},
		},
		{
			name: "a template swapped in the workbook, its hash recomputed",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				editBook(t, book, func(f *excelize.File) {
					src := metaText(t, f, "template")
					edited := strings.Replace(src, "      - code: \"3\"\n", "      - code: \"9\"\n        label: Smuggled\n      - code: \"3\"\n", 1)
					if edited == src {
						t.Fatal("the legal-gaps options changed; update the test")
					}
					tp, err := templates.Load("edited", []byte(edited))
					if err != nil {
						t.Fatal(err)
					}
					setMeta(t, f, "template", edited)
					wb := metaText(t, f, "workbook")
					wb = regexp.MustCompile(`"sha256":"[0-9a-f]+"`).ReplaceAllString(wb, `"sha256":"`+tp.Hash()+`"`)
					setMeta(t, f, "workbook", wb)
				})
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `another text of template legal-gaps`},
		},
		{
			name: "a NUL and control characters in an input ID",
			setup: func(t *testing.T, dir string) []string {
				lines := strings.Split(strings.TrimSpace(read(t, legalData)), "\n")
				lines[0] = strings.Replace(lines[0], `"id": "gpt4o-11"`, `"id": "gpt4o\u0000-11\u0007"`, 1)
				write(t, filepath.Join(dir, "in.jsonl"), strings.Join(lines, "\n")+"\n")
				if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", filepath.Join(dir, "in.jsonl"), "-o", filepath.Join(dir, "study")); code != 0 {
					t.Fatalf("generate: exit %d: %s", code, errs)
				}
				book := filepath.Join(dir, "study", "legal-gaps-b01.xlsx")
				ids := answer(t, book, "q:gaps=2", true, 0)
				answer(t, book, "annotator", "ak", 0)
				// The workbook shows the opaque ID; the manifest keeps the
				// real one with its control characters as visible symbols.
				if real := readManifest(t, filepath.Join(dir, "study")).OpaqueIDs[ids[0]]; !strings.HasPrefix(ids[0], "item-") || real != "gpt4o\u2400-11\u2407" {
					t.Fatalf("generate wrote the unit as %q, for %q; want an opaque ID, for the ID with its control characters as visible symbols", ids[0], real)
				}
				return []string{"export", "study", "--native", "-o", "labels.jsonl"}
			},
			check: func(t *testing.T, dir, _, _ string) {
				// The answered unit is matched to the manifest and exported
				// under the ID generate made visible.
				out := read(t, filepath.Join(dir, "labels.jsonl"))
				if !strings.Contains(out, `"labels":[2]`) && !strings.Contains(out, `"labels": [2]`) {
					t.Errorf("the answer is not exported:\n%s", out)
				}
			},
		},
		{
			name: "an encrypted workbook",
			setup: func(t *testing.T, dir string) []string {
				book := hostileStudy(t, dir)
				f, err := excelize.OpenFile(book)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := f.SaveAs(book, excelize.Options{Password: "secret"}); err != nil {
					t.Fatal(err)
				}
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`legal-gaps-ak-b01\.xlsx`, `encrypted workbook`, `without the password`},
		},
		{
			name: "a named pipe where a workbook should be",
			setup: func(t *testing.T, dir string) []string {
				hostileStudy(t, dir)
				if err := syscall.Mkfifo(filepath.Join(dir, "study", "stray.xlsx"), 0o644); err != nil {
					t.Fatal(err)
				}
				return []string{"pull", "study", "-o", "out.jsonl"}
			},
			stderr: []string{`stray\.xlsx`, `not a regular file`},
		},
		{
			name: "an input saved as UTF-16",
			setup: func(t *testing.T, dir string) []string {
				var b bytes.Buffer
				b.WriteString("\xff\xfe")
				for _, r := range `{"id": "a", "text": "x"}` + "\n" {
					b.WriteByte(byte(r))
					b.WriteByte(0)
				}
				write(t, filepath.Join(dir, "in.jsonl"), b.String())
				return []string{"generate", "-t", "legal-gaps", "-i", "in.jsonl", "-o", "study"}
			},
			code:   exitFailure,
			stderr: []string{`in\.jsonl`, `UTF-16`, `UTF-8`},
		},
		{
			name: "a JSON array given to a JSON Lines template",
			setup: func(t *testing.T, dir string) []string {
				lines := strings.Split(strings.TrimSpace(read(t, legalData)), "\n")
				write(t, filepath.Join(dir, "in.jsonl"), "[\n"+strings.Join(lines, ",\n")+"\n]\n")
				return []string{"generate", "-t", "legal-gaps", "-i", "in.jsonl", "-o", "study"}
			},
			code:   exitFailure,
			stderr: []string{`in\.jsonl`, `JSON array`, `JSON Lines`},
		},
		{
			name: "a batch name too long",
			setup: func(t *testing.T, dir string) []string {
				return []string{"generate", "-t", "legal-gaps", "-i", abs(t, legalData), "-o", "study", "--batch", strings.Repeat("b", 200)}
			},
			code:   exitUsage,
			stderr: []string{`--batch is 200 characters long`, `at most 64`},
		},
		{
			name: "a client file that sends credentials elsewhere",
			setup: func(t *testing.T, dir string) []string {
				write(t, filepath.Join(dir, "client.json"), `{"installed": {"client_id": "x.apps.googleusercontent.com", "client_secret": "s",
					"auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://tokens.example.net/token",
					"redirect_uris": ["http://localhost"]}}`)
				return []string{"auth", "login", "--client-secret", "client.json", "--no-browser", "--timeout", "1s"}
			},
			code:   exitFailure,
			stderr: []string{`client\.json`, `tokens\.example\.net`},
		},
	}
}

// annotatePart is the Annotate sheet's part in the workbooks generate
// writes (the second sheet, after the instructions).
const annotatePart = "xl/worksheets/sheet2.xml"

// hostileStudy generates a legal-gaps study for two annotators in
// dir/study and returns the first annotator's workbook.
func hostileStudy(t *testing.T, dir string) string {
	t.Helper()
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", filepath.Join(dir, "study"),
		"--annotators", "ak,bt", "--overlap", "2", "--seed", "1"); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	return filepath.Join(dir, "study", "legal-gaps-ak-b01.xlsx")
}

func laughsTemplate(t *testing.T) []byte {
	t.Helper()
	b, err := bombs.LegalGapsLaughs()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func abs(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fill writes n bytes of XML-safe filler, quickly.
func fill(t *testing.T, w io.Writer, n int) {
	t.Helper()
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for ; n > 0; n -= len(chunk) {
		if _, err := w.Write(chunk[:min(n, len(chunk))]); err != nil {
			t.Fatal(err)
		}
	}
}

// rezip replaces (or adds) one part of a workbook with what content
// writes, deflated. lie writes a local and central header that claims
// the part inflates to a few bytes.
func rezip(t *testing.T, path, part string, content func(io.Writer), lie bool) {
	t.Helper()
	var body bytes.Buffer
	fw, err := flate.NewWriter(&body, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	crc := crc32.NewIEEE()
	n := &counter{}
	content(io.MultiWriter(fw, crc, n))
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	size := uint64(n.n)
	if lie {
		size = 100
	}
	copyZip(t, path, part, func(zw *zip.Writer) {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: part, Method: zip.Deflate, CRC32: crc.Sum32(),
			CompressedSize64: uint64(body.Len()), UncompressedSize64: size})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body.Bytes())
	})
}

// flipByte flips a byte in the middle of a part's compressed data, keeping
// its headers: its checksum no longer matches.
func flipByte(t *testing.T, path, part string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw []byte
	var hdr zip.FileHeader
	for _, f := range zr.File {
		if f.Name == part {
			r, err := f.OpenRaw()
			if err != nil {
				t.Fatal(err)
			}
			raw, _ = io.ReadAll(r)
			hdr = f.FileHeader
		}
	}
	zr.Close()
	if raw == nil {
		t.Fatalf("%s has no part %s", path, part)
	}
	raw[len(raw)/2] ^= 0x5a
	copyZip(t, path, part, func(zw *zip.Writer) {
		w, err := zw.CreateRaw(&hdr)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(raw)
	})
}

// editPart rewrites a part's inflated bytes, with a correct checksum.
func editPart(t *testing.T, path, part string, edit func([]byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	var old []byte
	for _, f := range zr.File {
		if f.Name == part {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			old, _ = io.ReadAll(r)
		}
	}
	zr.Close()
	edited := edit(old)
	if bytes.Equal(edited, old) {
		t.Fatalf("the edit of %s changed nothing", part)
	}
	copyZip(t, path, part, func(zw *zip.Writer) {
		w, err := zw.Create(part)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(edited)
	})
}

// copyZip rewrites a zip with every part but one copied as it is, and
// that one written by add (at its place, or at the end when new).
func copyZip(t *testing.T, path, part string, add func(*zip.Writer)) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	added := false
	for _, f := range zr.File {
		if f.Name == part {
			add(zw)
			added = true
			continue
		}
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	if !added {
		add(zw)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	write(t, path, out.String())
}

// editBook edits a workbook with a spreadsheet library, as an application
// would save it.
func editBook(t *testing.T, path string, edit func(*excelize.File)) {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	edit(f)
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
}

// metaText is the text of a metadata record (its cells after the key,
// joined).
func metaText(t *testing.T, f *excelize.File, key string) string {
	t.Helper()
	rows, err := f.GetRows(backend.SheetMeta)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if len(r) > 0 && r[0] == key {
			return strings.Join(r[1:], "")
		}
	}
	t.Fatalf("no %s record in the metadata", key)
	return ""
}

// setMeta replaces a metadata record's text, in pieces under the cell
// limit.
func setMeta(t *testing.T, f *excelize.File, key, text string) {
	t.Helper()
	rows, err := f.GetRows(backend.SheetMeta)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if len(r) == 0 || r[0] != key {
			continue
		}
		for j := 1; j < len(r); j++ {
			f.SetCellValue(backend.SheetMeta, backend.CellName(j, i+1), "")
		}
		for j := 1; text != ""; j++ {
			piece := text[:min(len(text), 30000)]
			text = text[len(piece):]
			if err := f.SetCellStr(backend.SheetMeta, backend.CellName(j, i+1), piece); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	t.Fatalf("no %s record in the metadata", key)
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	return string(readBytes(t, path))
}

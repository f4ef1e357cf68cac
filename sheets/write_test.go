package sheets_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/api/googleapi"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"github.com/annosheet/annosheet/templates"
)

const data = "../testdata/data/"

// plan builds a built-in template's plan on the real data, sized for
// Google Sheets.
func plan(t testing.TB, name, file string) *backend.Plan {
	t.Helper()
	tp, err := templates.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	src, err := input.Open(tp.Input.Format, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tp, src, layout.Options{Study: "s", Seed: 1, CellLimit: backend.SheetsCellLimit})
	if err != nil {
		t.Fatal(err)
	}
	return res.Plan
}

func legalPlan(t testing.TB) *backend.Plan {
	return plan(t, "legal-gaps", data+"legal-gaps/examples.sample.jsonl")
}

func qaPlan(t testing.TB) *backend.Plan {
	return plan(t, "qa-span-errors", data+"qa-feedback/dev_feedback.sample.json")
}

// waits records the backoff waits instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// start runs a fake and connects a client to it that records its waits.
func start(t testing.TB, retry sheets.Retry) (*sheetsfake.Server, *sheets.Client, *waits) {
	t.Helper()
	fake, srv, err := sheetsfake.Start(sheetsfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	w := &waits{}
	if retry.Sleep == nil {
		retry.Sleep = w.sleep
	}
	c, err := sheets.New(context.Background(), sheets.Options{Endpoint: srv.URL, NoAuth: true, Retry: retry})
	if err != nil {
		t.Fatal(err)
	}
	return fake, c, w
}

// snapshot is a spreadsheet's whole state as the API shows it, without
// its identity, for comparing two spreadsheets.
func snapshot(t *testing.T, c *sheets.Client, id string) *sheetsapi.Spreadsheet {
	t.Helper()
	ss, err := c.Sheets.Spreadsheets.Get(id).IncludeGridData(true).Do()
	if err != nil {
		t.Fatal(err)
	}
	ss.SpreadsheetId, ss.SpreadsheetUrl = "", ""
	ss.ServerResponse = googleapi.ServerResponse{}
	// Links name sheets by ID: name them by title.
	titles := map[string]string{}
	for _, s := range ss.Sheets {
		titles[fmt.Sprint(s.Properties.SheetId)] = s.Properties.Title
	}
	for _, s := range ss.Sheets {
		for _, d := range s.Data {
			for _, rd := range d.RowData {
				for _, cd := range rd.Values {
					for _, run := range cd.TextFormatRuns {
						if l := run.Format.Link; l != nil {
							gid, rng, _ := strings.Cut(strings.TrimPrefix(l.Uri, "#gid="), "&")
							l.Uri = "#sheet=" + titles[gid] + "&" + rng
						}
					}
				}
			}
		}
	}
	for _, s := range ss.Sheets {
		// Sheet IDs differ when a spreadsheet is reused.
		s.Properties.SheetId = 0
		for _, pr := range s.ProtectedRanges {
			pr.ProtectedRangeId = 0
			pr.Range.SheetId = 0
			for _, u := range pr.UnprotectedRanges {
				u.SheetId = 0
			}
		}
		for _, m := range s.Merges {
			m.SheetId = 0
		}
		if s.BasicFilter != nil {
			s.BasicFilter.Range.SheetId = 0
		}
		for _, r := range s.ConditionalFormats {
			for _, g := range r.Ranges {
				g.SheetId = 0
			}
		}
	}
	return ss
}

// batchBodies lists the sizes of the batchUpdate calls answered with 200.
func batchBodies(fake *sheetsfake.Server) []int {
	var out []int
	for _, c := range fake.Calls() {
		if strings.HasSuffix(c.Path, ":batchUpdate") && c.Status == 200 {
			out = append(out, c.Bytes)
		}
	}
	return out
}

// TestWriteCalls checks that a generate makes a small constant number of
// calls plus one per chunk, each chunk under the size limit.
func TestWriteCalls(t *testing.T) {
	t.Run("one chunk", func(t *testing.T) {
		fake, c, _ := start(t, sheets.Retry{})
		w, err := c.Write(context.Background(), legalPlan(t), sheets.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// create, the sheets, the layout, the cells.
		if w.Calls != 4 || len(fake.Calls()) != 4 {
			t.Errorf("%d calls (%d at the server), want 4: %+v", w.Calls, len(fake.Calls()), fake.Calls())
		}
	})
	for _, limit := range []int{256 << 10, 64 << 10} {
		t.Run(fmt.Sprintf("chunks of %d KiB", limit>>10), func(t *testing.T) {
			fake, c, _ := start(t, sheets.Retry{})
			c.ChunkBytes = limit
			w, err := c.Write(context.Background(), qaPlan(t), sheets.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			bodies := batchBodies(fake)
			total := 0
			for _, b := range bodies {
				total += b
				// A request's JSON envelope adds a few bytes to its parts.
				if b > limit+1024 {
					t.Errorf("a request of %d bytes, over the %d limit", b, limit)
				}
			}
			// One create plus the batches: the sheets, then the payload cut
			// into chunks that are at least half full.
			least := 1 + int(math.Ceil(float64(total)/float64(limit)))
			most := 2 + int(math.Ceil(float64(total)/float64(limit/2)))
			if w.Calls != 1+len(bodies) || len(bodies) < least || len(bodies) > most {
				t.Errorf("%d calls for %d bytes in %d batches; want 1 + between %d and %d batches", w.Calls, total, len(bodies), least, most)
			}
			t.Logf("%d KiB of requests in %d batches of at most %d KiB: %d calls", total>>10, len(bodies), limit>>10, w.Calls)
		})
	}
}

// TestWriteValuesAreText checks that text that looks like a formula is
// written as text, never as a formula.
func TestWriteValuesAreText(t *testing.T) {
	_, c, _ := start(t, sheets.Retry{})
	p := &backend.Plan{Title: "t", Sheets: []*backend.Sheet{{
		Name: "S", Columns: []backend.Column{{Width: 10}, {Width: 10}}, RowCount: 1,
		Rows: func(emit func(backend.Row) error) error {
			return emit(backend.Row{Cells: []backend.Cell{{Value: "=HYPERLINK(\"http://evil.example\")"}, {Value: "+1"}}})
		},
	}}}
	w, err := c.Write(context.Background(), p, sheets.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ss := snapshot(t, c, w.ID)
	for _, cd := range ss.Sheets[0].Data[0].RowData[0].Values {
		if v := cd.UserEnteredValue; v == nil || v.FormulaValue != nil || v.StringValue == nil {
			t.Errorf("cell written as %+v, want a string value", v)
		}
	}
}

// TestWriteRetries checks the answers to Google's refusals: 429 and 5xx
// are tried again, honouring Retry-After, and the result is the same
// spreadsheet as without them; 403 is not tried again.
func TestWriteRetries(t *testing.T) {
	ctx := context.Background()
	clean := func(t *testing.T) *sheetsapi.Spreadsheet {
		_, c, _ := start(t, sheets.Retry{})
		w, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return snapshot(t, c, w.ID)
	}
	want := clean(t)

	t.Run("429 storm and 500s", func(t *testing.T) {
		fake, c, waits := start(t, sheets.Retry{})
		fake.Inject(
			sheetsfake.Fault{Match: ":batchUpdate", Status: 500, Times: 1},
			sheetsfake.Fault{Match: ":batchUpdate", Status: 429, RetryAfter: "7", Times: 4},
		)
		w, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if w.Calls != 4 || len(fake.Calls()) != 9 {
			t.Errorf("%d calls, %d at the server; want 4 and 9", w.Calls, len(fake.Calls()))
		}
		if diff := cmp.Diff(want, snapshot(t, c, w.ID)); diff != "" {
			t.Errorf("the retried spreadsheet differs (-clean +retried):\n%s", diff)
		}
		got := waits.all()
		if len(got) != 5 {
			t.Fatalf("%d waits, want 5 (one 500, four 429s)", len(got))
		}
		for _, d := range got[1:] {
			if d < 7*time.Second {
				t.Errorf("waited %s, less than Retry-After 7s", d)
			}
		}
		if n := len(fake.Spreadsheets()); n != 1 {
			t.Errorf("%d spreadsheets made, want 1", n)
		}
	})
	t.Run("backoff grows and stays bounded", func(t *testing.T) {
		fake, c, waits := start(t, sheets.Retry{Attempts: 8, Base: time.Second, Max: 4 * time.Second, Budget: time.Hour})
		fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Status: 503, Times: 7})
		if _, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		for i, d := range waits.all() {
			ceiling := min(time.Second<<i, 4*time.Second)
			if d <= 0 || d > ceiling {
				t.Errorf("wait %d: %s, want in (0, %s]", i+1, d, ceiling)
			}
		}
	})
	t.Run("attempts run out", func(t *testing.T) {
		fake, c, _ := start(t, sheets.Retry{Attempts: 3})
		fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Status: 429, Times: 100})
		var made string
		_, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{Created: func(id, url string) error { made = url; return nil }})
		var inc *sheets.IncompleteError
		var gerr *googleapi.Error
		if !errors.As(err, &inc) || !errors.As(err, &gerr) || gerr.Code != 429 {
			t.Fatalf("got %v, want an IncompleteError around the 429", err)
		}
		if inc.URL != made || !strings.Contains(err.Error(), made) || !strings.Contains(err.Error(), "run the same command again") {
			t.Errorf("the error does not name the spreadsheet made so far: %v", err)
		}
		if n := len(fake.Calls()); n != 1+3 {
			t.Errorf("%d calls, want the create and 3 tries of the sheets", n)
		}
	})
	t.Run("time budget runs out", func(t *testing.T) {
		fake, c, waits := start(t, sheets.Retry{Attempts: 100, Budget: 20 * time.Second})
		fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Status: 429, RetryAfter: "8", Times: 100})
		if _, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{}); err == nil {
			t.Fatal("no error")
		}
		var sum time.Duration
		for _, d := range waits.all() {
			sum += d
		}
		if sum > 20*time.Second || len(waits.all()) != 2 {
			t.Errorf("waited %s in %d waits, want 2 waits within the 20s budget", sum, len(waits.all()))
		}
	})
	t.Run("403 rate limit is retried", func(t *testing.T) {
		fake, c, waits := start(t, sheets.Retry{})
		fake.Inject(sheetsfake.Fault{Match: "permissions", Status: 403, Reason: "userRateLimitExceeded", Times: 2})
		if _, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{Share: []string{"a@example.org"}}); err != nil {
			t.Fatal(err)
		}
		if len(waits.all()) != 2 {
			t.Errorf("%d waits, want 2", len(waits.all()))
		}
	})
	t.Run("403 is not retried", func(t *testing.T) {
		fake, c, waits := start(t, sheets.Retry{})
		fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Status: 403, Times: 1})
		_, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{})
		var gerr *googleapi.Error
		if !errors.As(err, &gerr) || gerr.Code != 403 {
			t.Fatalf("got %v, want the 403", err)
		}
		if len(waits.all()) != 0 || len(fake.Calls()) != 2 { // the create, the refusal
			t.Errorf("%d waits, %d calls: a 403 was tried again", len(waits.all()), len(fake.Calls()))
		}
	})
	t.Run("a hung request is abandoned and tried again", func(t *testing.T) {
		fake, c, _ := start(t, sheets.Retry{Timeout: 100 * time.Millisecond})
		fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Delay: 2 * time.Second, Times: 1})
		w, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, snapshot(t, c, w.ID)); diff != "" {
			t.Errorf("spreadsheet differs after a timeout (-clean +got):\n%s", diff)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		fake, c, _ := start(t, sheets.Retry{Sleep: func(ctx context.Context, d time.Duration) error { <-ctx.Done(); return ctx.Err() }})
		fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Status: 503, Times: 100})
		cctx, cancel := context.WithCancel(ctx)
		_, err := c.Write(cctx, legalPlan(t), sheets.WriteOptions{Created: func(string, string) error {
			time.AfterFunc(50*time.Millisecond, cancel)
			return nil
		}})
		var inc *sheets.IncompleteError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &inc) {
			t.Fatalf("got %v, want a cancelled IncompleteError", err)
		}
	})
}

// TestWriteResume checks that a spreadsheet left unfinished is finished
// in place: the same spreadsheet, the same content as a clean write.
func TestWriteResume(t *testing.T) {
	ctx := context.Background()
	fake, c, _ := start(t, sheets.Retry{Attempts: 1})
	fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Status: 500, Times: 1})
	p := legalPlan(t)
	_, err := c.Write(ctx, p, sheets.WriteOptions{})
	var inc *sheets.IncompleteError
	if !errors.As(err, &inc) {
		t.Fatalf("got %v", err)
	}
	w, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{Existing: inc.ID})
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != inc.ID || len(fake.Spreadsheets()) != 1 {
		t.Fatalf("resumed into %s (of %d spreadsheets), want %s", w.ID, len(fake.Spreadsheets()), inc.ID)
	}
	// Writing again over a finished one (--force) gives the same too.
	if _, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{Existing: inc.ID}); err != nil {
		t.Fatal(err)
	}
	_, c2, _ := start(t, sheets.Retry{})
	w2, err := c2.Write(ctx, legalPlan(t), sheets.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(snapshot(t, c2, w2.ID), snapshot(t, c, w.ID)); diff != "" {
		t.Errorf("resumed spreadsheet differs from a clean one (-clean +resumed):\n%s", diff)
	}
}

func TestWriteShareFolderProtect(t *testing.T) {
	ctx := context.Background()
	fake, c, _ := start(t, sheets.Retry{})
	folder := fake.AddFolder("Study", false)
	w, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{
		Folder: folder, Share: []string{"ann1@example.org", "ann2@example.org"}, Message: "Thank you for annotating!", Protect: sheets.ProtectEditors,
	})
	if err != nil {
		t.Fatal(err)
	}
	parents, shares, mails, ok := fake.FileInfo(w.ID)
	if !ok {
		t.Fatal("no file")
	}
	if diff := cmp.Diff([]string{folder}, parents); diff != "" {
		t.Errorf("parents (-want +got):\n%s", diff)
	}
	wantShares := []sheetsfake.Share{{Email: "ann1@example.org", Role: "writer", Type: "user"}, {Email: "ann2@example.org", Role: "writer", Type: "user"}}
	if diff := cmp.Diff(wantShares, shares); diff != "" {
		t.Errorf("shares (-want +got):\n%s", diff)
	}
	wantMails := []sheetsfake.Mail{{To: "ann1@example.org", Role: "writer", Message: "Thank you for annotating!"}, {To: "ann2@example.org", Role: "writer", Message: "Thank you for annotating!"}}
	if diff := cmp.Diff(wantMails, mails); diff != "" {
		t.Errorf("mails (-want +got):\n%s", diff)
	}
	ss := snapshot(t, c, w.ID)
	for _, s := range ss.Sheets {
		for _, pr := range s.ProtectedRanges {
			if pr.WarningOnly {
				t.Errorf("sheet %s: protection is warning-only with --protect editors", s.Properties.Title)
			}
		}
	}
	// A bad address is Google's error, and the spreadsheet made is named.
	_, err = c.Write(ctx, legalPlan(t), sheets.WriteOptions{Share: []string{"not an address"}})
	var inc *sheets.IncompleteError
	if !errors.As(err, &inc) || !strings.Contains(err.Error(), "not an address") {
		t.Errorf("bad share: %v", err)
	}
}

func TestServiceAccount(t *testing.T) {
	ctx := context.Background()
	fake, srv, err := sheetsfake.Start(sheetsfake.Options{RequireAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const email = "annosheet@study.iam.gserviceaccount.com"
	keyFile := filepath.Join(t.TempDir(), "key.json")
	if err := fake.WriteServiceAccountKey(keyFile, email); err != nil {
		t.Fatal(err)
	}
	c, err := sheets.New(ctx, sheets.Options{Endpoint: srv.URL, CredentialsFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	if !c.ServiceAccount {
		t.Fatal("not a service account client")
	}
	if _, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{}); !errors.Is(err, sheets.ErrServiceAccountFolder) {
		t.Errorf("no folder: %v, want ErrServiceAccountFolder", err)
	}
	// A folder of My Drive does not help: the service account would own
	// the file.
	mine := fake.AddFolder("mine", false, email)
	_, err = c.Write(ctx, legalPlan(t), sheets.WriteOptions{Folder: mine})
	if err == nil || !strings.Contains(err.Error(), "storage quota") {
		t.Errorf("My Drive folder: %v, want Google's quota refusal", err)
	}
	shared := fake.AddFolder("shared", true, email)
	w, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{Folder: shared, Share: []string{"ann@example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	parents, _, _, _ := fake.FileInfo(w.ID)
	if len(parents) != 1 || parents[0] != shared {
		t.Errorf("parents %v, want the shared folder", parents)
	}
	g, closeFn, err := c.Open(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	p, err := decode.Pull(g, decode.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Records) != 5 {
		t.Errorf("%d records", len(p.Records))
	}
	// The same result as a user's spreadsheet.
	_, uc, _ := start(t, sheets.Retry{})
	uw, err := uc.Write(ctx, legalPlan(t), sheets.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(snapshot(t, uc, uw.ID), snapshot(t, c, w.ID)); diff != "" {
		t.Errorf("service account spreadsheet differs from a user's (-user +sa):\n%s", diff)
	}
}

func TestNew(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opt  sheets.Options
		want string
	}{
		{"no credentials", sheets.Options{}, "not signed in"},
		{"no-auth to Google", sheets.Options{NoAuth: true}, "loopback"},
		{"no-auth elsewhere", sheets.Options{NoAuth: true, Endpoint: "https://sheets.example.org"}, "loopback"},
		{"bad key", sheets.Options{CredentialsFile: "testdata/none.json"}, "testdata/none.json"},
	} {
		_, err := sheets.New(ctx, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := sheets.New(ctx, sheets.Options{}); !errors.Is(err, sheets.ErrNoCredentials) {
		t.Errorf("no credentials: %v", err)
	}
}

func TestSpreadsheetID(t *testing.T) {
	const id = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"
	for in, want := range map[string]string{
		"https://docs.google.com/spreadsheets/d/" + id + "/edit#gid=0": id,
		"https://docs.google.com/spreadsheets/d/" + id:                 id,
		"https://docs.google.com/spreadsheets/u/1/d/" + id + "/edit":   id,
		"http://127.0.0.1:8080/spreadsheets/d/" + id + "/edit":         id,
		id:                    id,
		"study/b01.xlsx":      "",
		"legal-gaps-b01":      "",
		"https://example.org": "",
		"":                    "",
	} {
		got, ok := sheets.SpreadsheetID(in)
		if got != want || ok != (want != "") {
			t.Errorf("SpreadsheetID(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestOpenStream checks the grid Open gives: one values.batchGet for a
// pull in the usual order (metadata, then answers), the same rows in any
// other order, and rows numbered as on the sheet.
func TestOpenStream(t *testing.T) {
	ctx := context.Background()
	fake, c, _ := start(t, sheets.Retry{})
	w, err := c.Write(ctx, qaPlan(t), sheets.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// What the typed client reads, row by row.
	want := map[string][][]string{}
	for _, sh := range []string{backend.SheetInstructions, backend.SheetAnnotate, backend.SheetLists, backend.SheetMeta} {
		vr, err := c.Sheets.Spreadsheets.Values.Get(w.ID, sh).ValueRenderOption("UNFORMATTED_VALUE").Do()
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range vr.Values {
			if len(r) == 0 {
				continue
			}
			row := []string{fmt.Sprint(i + 1)}
			for _, v := range r {
				switch v := v.(type) {
				case bool:
					row = append(row, strings.ToUpper(fmt.Sprint(v)))
				default:
					row = append(row, fmt.Sprint(v))
				}
			}
			want[sh] = append(want[sh], row)
		}
	}
	read := func(g *backend.Grid, sh string) [][]string {
		var out [][]string
		if err := g.Rows(sh, func(n int, cells []backend.ReadCell) error {
			out = append(out, append([]string{fmt.Sprint(n)}, backend.Texts(cells)...))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	batchGets := func() int {
		n := 0
		for _, call := range fake.Calls() {
			if strings.HasSuffix(call.Path, "values:batchGet") {
				n++
			}
		}
		return n
	}
	for _, order := range [][]string{
		{backend.SheetMeta, backend.SheetAnnotate},
		{backend.SheetAnnotate, backend.SheetMeta, backend.SheetInstructions, backend.SheetLists},
		{backend.SheetLists, backend.SheetMeta, backend.SheetMeta, backend.SheetAnnotate, backend.SheetAnnotate},
	} {
		fake.ResetCalls()
		g, closeFn, err := c.Open(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range order {
			if diff := cmp.Diff(want[sh], read(g, sh)); diff != "" {
				t.Errorf("order %v, sheet %s (-typed client +stream):\n%s", order, sh, diff)
			}
		}
		if err := closeFn(); err != nil {
			t.Fatal(err)
		}
		if order[0] == backend.SheetMeta && len(order) == 2 && batchGets() != 1 {
			t.Errorf("%d values.batchGet calls for a pull in order, want 1", batchGets())
		}
	}
	g, closeFn, err := c.Open(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	stop := errors.New("stop")
	if err := g.Rows(backend.SheetMeta, func(int, []backend.ReadCell) error { return stop }); err != stop {
		t.Errorf("the callback's error was not returned: %v", err)
	}
	if diff := cmp.Diff(want[backend.SheetAnnotate], read(g, backend.SheetAnnotate)); diff != "" {
		t.Errorf("after a stopped read (-want +got):\n%s", diff)
	}
	if err := g.Rows("Nope", func(int, []backend.ReadCell) error { return nil }); err == nil {
		t.Error("no error for a sheet that is not there")
	}
}

// FuzzSpreadsheetID: whatever is given, an ID found is made of the
// characters of IDs and appears in the input.
func FuzzSpreadsheetID(f *testing.F) {
	for _, s := range []string{"https://docs.google.com/spreadsheets/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit#gid=0", "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms", "study/b01.xlsx", "/spreadsheets/d/", "http://[::1]/spreadsheets/d/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := sheets.SpreadsheetID(s)
		if !ok {
			if id != "" {
				t.Errorf("not ok but id %q", id)
			}
			return
		}
		if id == "" || !strings.Contains(s, id) || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
			t.Errorf("SpreadsheetID(%q) = %q", s, id)
		}
	})
}

// TestCreateNotTwice checks that a spreadsheet whose creation was carried
// out but whose answer was lost is found, not made again; and that a
// create refused for certain is tried again.
func TestCreateNotTwice(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		fault sheetsfake.Fault
	}{
		{"answer lost", sheetsfake.Fault{Match: "POST /drive/v3/files", Status: 503, Lost: true}},
		{"connection cut after the work", sheetsfake.Fault{Match: "POST /drive/v3/files", Status: 502, Lost: true, Times: 2}},
		{"refused for the moment", sheetsfake.Fault{Match: "POST /drive/v3/files", Status: 429, Times: 2}},
		{"server error before the work", sheetsfake.Fault{Match: "POST /drive/v3/files", Status: 500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, c, _ := start(t, sheets.Retry{})
			folder := fake.AddFolder("Study", true)
			fake.Inject(tc.fault)
			w, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{Folder: folder})
			if err != nil {
				t.Fatal(err)
			}
			if got := fake.Spreadsheets(); len(got) != 1 || got[0] != w.ID {
				t.Errorf("spreadsheets %v, want only %s", got, w.ID)
			}
			if parents, _, _, _ := fake.FileInfo(w.ID); len(parents) != 1 || parents[0] != folder {
				t.Errorf("parents %v", parents)
			}
		})
	}
}

// TestRewriteMovesAndRenames: writing into an existing spreadsheet puts it
// in the folder asked for and gives it the plan's title.
func TestRewriteMovesAndRenames(t *testing.T) {
	ctx := context.Background()
	fake, c, _ := start(t, sheets.Retry{})
	w, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	folder := fake.AddFolder("Later", false)
	p := qaPlan(t)
	if _, err := c.Write(ctx, p, sheets.WriteOptions{Existing: w.ID, Folder: folder}); err != nil {
		t.Fatal(err)
	}
	if parents, _, _, _ := fake.FileInfo(w.ID); len(parents) != 1 || parents[0] != folder {
		t.Errorf("parents %v, want %s", parents, folder)
	}
	ss, err := c.Sheets.Spreadsheets.Get(w.ID).Do()
	if err != nil {
		t.Fatal(err)
	}
	if ss.Properties.Title != p.Title {
		t.Errorf("title %q, want %q", ss.Properties.Title, p.Title)
	}
	// A spreadsheet that cannot be opened is named in the error.
	_, err = c.Write(ctx, p, sheets.WriteOptions{Existing: "fake-gone-00000000000000000000000", ExistingURL: "http://x/spreadsheets/d/gone/edit"})
	if err == nil || !strings.Contains(err.Error(), "http://x/spreadsheets/d/gone/edit is not finished") {
		t.Errorf("got %v", err)
	}
}

// TestEmptyBatch: a batch with nothing to annotate still makes a valid
// spreadsheet (Google will not freeze every row of a sheet).
func TestEmptyBatch(t *testing.T) {
	ctx := context.Background()
	_, c, _ := start(t, sheets.Retry{})
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(path, nil, 0o644)
	src, err := input.Open(tp.Input.Format, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tp, src, layout.Options{CellLimit: backend.SheetsCellLimit})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(ctx, res.Plan, sheets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestListValuesLikeFormulas: a dropdown whose labels would read as
// formulas in Google's list points at the Lists sheet instead.
func TestListValuesLikeFormulas(t *testing.T) {
	_, c, _ := start(t, sheets.Retry{})
	values := []string{"+1 better", "0 same", "-1 worse"}
	p := &backend.Plan{Title: "t", Sheets: []*backend.Sheet{
		{Name: "A", Columns: []backend.Column{{Width: 10}}, RowCount: 2, Validations: []backend.Validation{{Col: 0, FirstRow: 2, LastRow: 2, Kind: backend.ValidList, Values: values, Source: "L!$A$1:$A$3", Strict: true}},
			Rows: func(emit func(backend.Row) error) error {
				if err := emit(backend.Row{Cells: []backend.Cell{{Value: "Change"}}}); err != nil {
					return err
				}
				return emit(backend.Row{Cells: []backend.Cell{{}}})
			}},
		{Name: "L", Columns: []backend.Column{{Width: 10}}, RowCount: 3, Rows: func(emit func(backend.Row) error) error {
			for _, v := range values {
				if err := emit(backend.Row{Cells: []backend.Cell{{Value: v}}}); err != nil {
					return err
				}
			}
			return nil
		}},
	}}
	w, err := c.Write(context.Background(), p, sheets.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ss := snapshot(t, c, w.ID)
	rule := ss.Sheets[0].Data[0].RowData[1].Values[0].DataValidation
	if rule == nil || rule.Condition.Type != "ONE_OF_RANGE" || rule.Condition.Values[0].UserEnteredValue != "=L!$A$1:$A$3" {
		t.Errorf("rule %+v, want ONE_OF_RANGE over the list", rule)
	}
}

// TestOpenRetries: a pull meets Google's refusals for the moment and
// still reads every record.
func TestOpenRetries(t *testing.T) {
	ctx := context.Background()
	fake, c, waits := start(t, sheets.Retry{})
	w, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fake.Inject(
		sheetsfake.Fault{Match: "GET /v4/spreadsheets/" + w.ID, Status: 503},
		sheetsfake.Fault{Match: "values:batchGet", Status: 429, RetryAfter: "3", Times: 2},
	)
	g, closeFn, err := c.Open(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	p, err := decode.Pull(g, decode.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Records) != 5 || len(waits.all()) != 3 {
		t.Errorf("%d records after %d waits, want 5 after 3", len(p.Records), len(waits.all()))
	}
	// Refused for good: the error says which spreadsheet.
	fake.Inject(sheetsfake.Fault{Match: "values:batchGet", Status: 403})
	if _, _, err := c.Open(ctx, w.ID); err == nil || !strings.Contains(err.Error(), w.ID) {
		t.Errorf("got %v", err)
	}
}

// TestRewriteOnlyUnchanged: the store rewrites a spreadsheet in place only
// while it is the version the caller read; an edit since (an annotator's
// answer) makes the write fail with backend.ErrChanged before any call
// that changes it, and the edit stays.
func TestRewriteOnlyUnchanged(t *testing.T) {
	ctx := context.Background()
	fake, c, _ := start(t, sheets.Retry{})
	store := sheets.Store{Client: func(context.Context) (*sheets.Client, error) { return c, nil }}
	at, err := store.Write(ctx, legalPlan(t), backend.Location{Kind: backend.KindGSheets}, backend.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v1, err := store.Version(ctx, at)
	if err != nil || v1 == "" {
		t.Fatalf("version %q, %v", v1, err)
	}
	if v, _ := store.Version(ctx, at); v != v1 {
		t.Errorf("reading changed the version: %s, then %s", v1, v)
	}
	// The annotator answers.
	vr := &sheetsapi.ValueRange{Values: [][]any{{"TRUE"}}}
	if _, err := c.Sheets.Spreadsheets.Values.Update(at.ID, "'Annotate'!B2", vr).ValueInputOption("USER_ENTERED").Do(); err != nil {
		t.Fatal(err)
	}
	v2, _ := store.Version(ctx, at)
	if v2 == v1 {
		t.Fatalf("an edit left the version at %s", v1)
	}
	fake.ResetCalls()
	_, err = store.Write(ctx, legalPlan(t), at, backend.WriteOptions{Expect: &v1})
	if !errors.Is(err, backend.ErrChanged) || !strings.Contains(err.Error(), at.String()) {
		t.Fatalf("a rewrite over the edit: %v, want ErrChanged naming %s", err, at)
	}
	for _, call := range fake.Calls() {
		if call.Method != http.MethodGet {
			t.Errorf("a refused rewrite called %s %s", call.Method, call.Path)
		}
	}
	got, err := c.Sheets.Spreadsheets.Values.Get(at.ID, "'Annotate'!B2").Do()
	if err != nil || len(got.Values) != 1 || fmt.Sprint(got.Values[0][0]) != "true" && fmt.Sprint(got.Values[0][0]) != "TRUE" {
		t.Errorf("the answer after the refused rewrite: %v %v", got, err)
	}
	// With the version as it is now, the rewrite goes ahead.
	if _, err := store.Write(ctx, legalPlan(t), at, backend.WriteOptions{Expect: &v2}); err != nil {
		t.Errorf("a rewrite of the version read: %v", err)
	}
	// A spreadsheet gone is said to be gone.
	gone := backend.Location{Kind: backend.KindGSheets, ID: "fake-gone-00000000000000000000000"}
	if _, err := store.Version(ctx, gone); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("the version of a spreadsheet gone: %v", err)
	}
}

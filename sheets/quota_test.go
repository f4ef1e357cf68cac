package sheets_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

// studyRecords writes n legal-gaps records, the sample's five over and
// over under IDs of their own: a study of n one-unit batches. The long
// context is cut short, which changes the size of each request but not
// their number, so that the test spends its time on calls, not on JSON.
func studyRecords(t *testing.T, n int) string {
	t.Helper()
	f, err := os.Open(data + "legal-gaps/examples.sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sample []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		sample = append(sample, r)
	}
	if err := sc.Err(); err != nil || len(sample) == 0 {
		t.Fatalf("the sample: %v (%d records)", err, len(sample))
	}
	var b strings.Builder
	for i := range n {
		r := map[string]any{}
		for k, v := range sample[i%len(sample)] {
			r[k] = v
		}
		r["id"] = fmt.Sprintf("%v-%03d", r["id"], i)
		r["previous_context"] = cut(r["previous_context"])
		if ps, ok := r["cited_paragraphs"].([]any); ok {
			short := make([]any, len(ps))
			for j, p := range ps {
				if m, ok := p.(map[string]any); ok {
					p = map[string]any{"citation": m["citation"], "text": cut(m["text"])}
				}
				short[j] = p
			}
			r["cited_paragraphs"] = short
		}
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cut shortens a long text to its first 300 bytes.
func cut(v any) any {
	if s, ok := v.(string); ok && len(s) > 300 {
		return s[:300]
	}
	return v
}

// tally counts a phase's calls at the fake: Sheets reads and writes,
// Drive calls, and those the quota refused.
type tally struct{ reads, writes, drive, refused int }

func count(calls []sheetsfake.Call) tally {
	var c tally
	for _, call := range calls {
		switch {
		case strings.HasPrefix(call.Path, "/drive/"):
			c.drive++
		case call.Method == http.MethodGet:
			c.reads++
		default:
			c.writes++
		}
		if call.Status == http.StatusTooManyRequests || call.Status == http.StatusForbidden {
			c.refused++
		}
	}
	return c
}

// minutes is the time n requests take at perMinute a minute, the first
// perMinute of them at once: the least any pacing can do, and what a
// pacing that wastes nothing does.
func minutes(n, perMinute int) time.Duration {
	if n == 0 {
		return 0
	}
	return time.Duration((n-1)/perMinute) * time.Minute
}

// quotaStudy is a fake enforcing Google's quota, counted over any 60
// seconds (the stricter reading), on a simulated clock, and a store that
// reaches it with pace.
func quotaStudy(t *testing.T, pace sheets.Pace) (*sheetsfake.Server, *sheetsfake.Clock, sheets.Store, study.Backends) {
	t.Helper()
	clock := sheetsfake.NewClock(time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC))
	q := sheetsfake.GoogleQuota()
	q.Rolling = true
	fake, srv, err := sheetsfake.Start(sheetsfake.Options{Quota: q, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	pace.Clock = clock
	store := sheets.Store{Endpoint: srv.URL, Client: sheets.SignInOnUse(sheets.Options{
		Endpoint: srv.URL, NoAuth: true, Pace: pace,
		// Retries wait on the simulated clock too.
		Retry: sheets.Retry{Sleep: clock.Sleep},
	}, func(string) {})}
	return fake, clock, store, study.Backends{Files: xlsx.Store{}, Spreadsheets: store, Endpoint: srv.URL}
}

// generateStudy generates a study of n one-unit spreadsheets through the
// store, as 'annosheet generate --format gsheets --batch-size 1' does.
func generateStudy(t *testing.T, store sheets.Store, n int) string {
	t.Helper()
	tp, err := input.Template("legal-gaps", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "study")
	gen, err := study.GenerateInputs(context.Background(), study.GenerateOptions{
		Template: tp, Inputs: []string{studyRecords(t, n)}, Dir: dir, BatchSize: 1,
		Seed: 1, SeedSet: true, Now: time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC), Endpoint: store.Endpoint,
	}, store)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(gen.Manifest.Batches); got != n {
		t.Fatalf("%d spreadsheets made, want %d", got, n)
	}
	return dir
}

// pullStudy pulls the study's spreadsheets through its manifest, as
// 'annosheet pull DIR' does, and returns how many workbooks it read.
func pullStudy(t *testing.T, b study.Backends, dir string) int {
	t.Helper()
	res, _, err := study.PullSources(context.Background(), []string{dir}, b, study.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Workbooks)
}

// TestQuotaStudyOf200 generates a study of 200 spreadsheets and pulls
// them against a fake enforcing Google's per-user quota of 60 reads and
// 60 writes a minute: the client's pacing meets no refusal at all, and
// takes no longer on the simulated clock than the quota demands.
func TestQuotaStudyOf200(t *testing.T) {
	t.Parallel()
	const n = 200
	fake, clock, store, b := quotaStudy(t, sheets.Pace{
		Reads: sheets.GoogleReadsPerMinute, Writes: sheets.GoogleWritesPerMinute, Drive: sheets.GoogleDrivePerMinute,
	})
	start := clock.Now()
	dir := generateStudy(t, store, n)
	genTime := clock.Now().Sub(start)
	gen := count(fake.Calls())
	fake.ResetCalls()

	start = clock.Now()
	if got := pullStudy(t, b, dir); got != n {
		t.Fatalf("pulled %d workbooks, want %d", got, n)
	}
	pullTime := clock.Now().Sub(start)
	pull := count(fake.Calls())

	if got := fake.Throttled(); got != 0 || gen.refused != 0 || pull.refused != 0 {
		t.Fatalf("the quota refused %d calls (%d in generate, %d in pull), want none", got, gen.refused, pull.refused)
	}
	t.Logf("generate: %d spreadsheets in %d Sheets writes, %d reads and %d Drive calls: %s on the simulated clock",
		n, gen.writes, gen.reads, gen.drive, genTime)
	t.Logf("pull: %d spreadsheets in %d Sheets reads, %d writes and %d Drive calls: %s on the simulated clock",
		n, pull.reads, pull.writes, pull.drive, pullTime)
	t.Logf("in all %s, 0 refused", genTime+pullTime)
	// Each kind goes at its own pace: the phase takes as long as its
	// busiest kind needs, and no longer.
	for _, p := range []struct {
		name          string
		took          time.Duration
		reads, writes int
	}{{"generate", genTime, gen.reads, gen.writes}, {"pull", pullTime, pull.reads, pull.writes}} {
		least := max(minutes(p.reads, sheets.GoogleReadsPerMinute), minutes(p.writes, sheets.GoogleWritesPerMinute))
		if p.took < least || p.took > least+time.Minute {
			t.Errorf("%s took %s for %d reads and %d writes; the quota asks for %s, and at most a minute more", p.name, p.took, p.reads, p.writes, least)
		}
	}
	if gen.writes < 3*n || pull.reads < 2*n {
		t.Errorf("%d writes to generate and %d reads to pull %d spreadsheets: fewer than the 3 and 2 each needs", gen.writes, pull.reads, n)
	}
}

// TestQuotaUnpaced: the same study without pacing (the default against a
// fake on this machine) meets the quota's 429s, which the retries carry
// it through: the quota is enforced, and the pacing is what avoids it.
func TestQuotaUnpaced(t *testing.T) {
	t.Parallel()
	const n = 40
	fake, clock, store, b := quotaStudy(t, sheets.Pace{})
	start := clock.Now()
	dir := generateStudy(t, store, n)
	if got := pullStudy(t, b, dir); got != n {
		t.Fatalf("pulled %d workbooks, want %d", got, n)
	}
	refused := fake.Throttled()
	if refused == 0 {
		t.Fatalf("%d spreadsheets made and pulled without pacing met no 429: the quota is not enforced", n)
	}
	t.Logf("without pacing: %d spreadsheets made and pulled, %d calls refused, %s on the simulated clock", n, refused, clock.Now().Sub(start))
}

package sheetsfake_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/googleapi"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

// quotaStart is a fake with a quota on a simulated clock, and one
// spreadsheet to call on. The clock starts at a whole minute.
func quotaStart(t *testing.T, q sheetsfake.Quota) (*env, *sheetsfake.Clock, string) {
	t.Helper()
	clock := sheetsfake.NewClock(time.Now().Truncate(time.Minute))
	e := start(t, sheetsfake.Options{Quota: q, Now: clock.Now})
	// Creating is a write too; the tests count from after it.
	ss, err := e.sheets.Spreadsheets.Create(&sheetsapi.Spreadsheet{Properties: &sheetsapi.SpreadsheetProperties{Title: "q"}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	return e, clock, ss.SpreadsheetId
}

// write is one Sheets write request: a batchUpdate that renames.
func write(e *env, id string) error {
	_, err := e.sheets.Spreadsheets.BatchUpdate(id, &sheetsapi.BatchUpdateSpreadsheetRequest{Requests: []*sheetsapi.Request{{
		UpdateSpreadsheetProperties: &sheetsapi.UpdateSpreadsheetPropertiesRequest{Properties: &sheetsapi.SpreadsheetProperties{Title: "r"}, Fields: "title"},
	}}}).Do()
	return err
}

// read is one Sheets read request.
func read(e *env, id string) error {
	_, err := e.sheets.Spreadsheets.Get(id).Do()
	return err
}

// wantQuota checks an error is Google's answer to a Sheets request over
// the named limit.
func wantQuota(t *testing.T, err error, limit string) {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %v, want Google's 429", err)
	}
	want := "Quota exceeded for quota metric '" + strings.Fields(limit)[0] + " requests' and limit '" + limit + "' of service 'sheets.googleapis.com'"
	if ge.Code != http.StatusTooManyRequests || !strings.Contains(ge.Message, want) ||
		len(ge.Errors) != 1 || ge.Errors[0].Reason != "rateLimitExceeded" {
		t.Fatalf("error %d %q %+v, want 429 %q with reason rateLimitExceeded", ge.Code, ge.Message, ge.Errors, want)
	}
	if ra := ge.Header.Get("Retry-After"); ra != "" {
		t.Errorf("Retry-After %q: Google sends none for a quota", ra)
	}
}

// TestQuotaWritesPerUser: the 61st write of a minute is refused, reads
// are counted apart, refusals do not count, and the next minute refills.
func TestQuotaWritesPerUser(t *testing.T) {
	t.Parallel()
	e, clock, id := quotaStart(t, sheetsfake.GoogleQuota())
	for i := range 60 {
		if err := write(e, id); err != nil {
			t.Fatalf("write %d: %v", i+1, err)
		}
		clock.Advance(500 * time.Millisecond)
	}
	wantQuota(t, write(e, id), "Write requests per minute per user")
	wantQuota(t, write(e, id), "Write requests per minute per user")
	if err := read(e, id); err != nil {
		t.Errorf("a read after the writes' quota is spent: %v", err)
	}
	if n := e.fake.Throttled(); n != 2 {
		t.Errorf("Throttled() = %d, want 2", n)
	}
	var answered429 int
	for _, c := range e.fake.Calls() {
		if c.Status == http.StatusTooManyRequests {
			answered429++
		}
	}
	if answered429 != 2 {
		t.Errorf("%d calls answered 429 in the call log, want 2", answered429)
	}
	// The writes were made in the first 30 seconds of the minute; at the
	// next whole minute the quota is full again, all 60 of it (the two
	// refused did not count).
	clock.Advance(30 * time.Second)
	for i := range 60 {
		if err := write(e, id); err != nil {
			t.Fatalf("write %d of the next minute: %v", i+1, err)
		}
	}
	wantQuota(t, write(e, id), "Write requests per minute per user")
}

// TestQuotaReads: reads have their own 60 a minute.
func TestQuotaReads(t *testing.T) {
	t.Parallel()
	e, _, id := quotaStart(t, sheetsfake.GoogleQuota())
	for i := range 60 {
		if err := read(e, id); err != nil {
			t.Fatalf("read %d: %v", i+1, err)
		}
	}
	_, err := e.sheets.Spreadsheets.Values.BatchGet(id).Ranges("Sheet1").Do()
	wantQuota(t, err, "Read requests per minute per user")
	if err := write(e, id); err != nil {
		t.Errorf("a write after the reads' quota is spent: %v", err)
	}
}

// TestQuotaRolling: counted over any 60 seconds, the quota refills a
// minute after each request, not at the whole minute.
func TestQuotaRolling(t *testing.T) {
	t.Parallel()
	q := sheetsfake.GoogleQuota()
	q.Rolling = true
	e, clock, id := quotaStart(t, q)
	clock.Advance(50 * time.Second)
	for i := range 60 {
		if err := write(e, id); err != nil {
			t.Fatalf("write %d: %v", i+1, err)
		}
	}
	// A whole minute begins: the fixed count would let it through.
	clock.Advance(10 * time.Second)
	wantQuota(t, write(e, id), "Write requests per minute per user")
	// A minute after the 60 writes, their places are free.
	clock.Advance(50*time.Second - time.Nanosecond)
	wantQuota(t, write(e, id), "Write requests per minute per user")
	clock.Advance(time.Nanosecond)
	if err := write(e, id); err != nil {
		t.Errorf("a minute after: %v", err)
	}
}

// TestQuotaPerProject: each user has a quota of their own, and all of
// them together the project's.
func TestQuotaPerProject(t *testing.T) {
	t.Parallel()
	q := sheetsfake.Quota{Writes: 60, ProjectWrites: 90}
	e, _, id := quotaStart(t, q)
	for i := range 60 {
		if err := write(e, id); err != nil {
			t.Fatalf("write %d: %v", i+1, err)
		}
	}
	wantQuota(t, write(e, id), "Write requests per minute per user")
	// Another user: a service account. Its writes fail for want of
	// access to the spreadsheet, but Google counts them all the same.
	k, key, _ := newSAKey(t, e.fake, saEmail)
	other := &env{fake: e.fake, url: e.url, sheets: sheetsClient(t, e.url, saToken(t, k, key))}
	for i := range 30 {
		var ge *googleapi.Error
		if err := write(other, id); !errors.As(err, &ge) || ge.Code == http.StatusTooManyRequests {
			t.Fatalf("the other user's write %d: %v, want a refusal that is not the quota", i+1, err)
		}
	}
	wantQuota(t, write(other, id), "Write requests per minute")
}

// TestQuotaDrive: Drive's quota is its own, and Drive answers 403
// userRateLimitExceeded.
func TestQuotaDrive(t *testing.T) {
	t.Parallel()
	e, _, id := quotaStart(t, sheetsfake.Quota{Drive: 3, Writes: 1})
	for i := range 3 {
		if _, err := e.drive.Files.Get(id).Do(); err != nil {
			t.Fatalf("Drive call %d: %v", i+1, err)
		}
	}
	_, err := e.drive.Files.Get(id).Do()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != http.StatusForbidden || len(ge.Errors) != 1 || ge.Errors[0].Reason != "userRateLimitExceeded" {
		t.Fatalf("the 4th Drive call: %v, want 403 userRateLimitExceeded", err)
	}
	if err := write(e, id); err != nil {
		t.Errorf("a Sheets write after Drive's quota is spent: %v", err)
	}
}

// TestQuotaOff: without a quota, nothing is refused however fast.
func TestQuotaOff(t *testing.T) {
	t.Parallel()
	e, _, id := quotaStart(t, sheetsfake.Quota{})
	for i := range 200 {
		if err := write(e, id); err != nil {
			t.Fatalf("write %d: %v", i+1, err)
		}
	}
	if n := e.fake.Throttled(); n != 0 {
		t.Errorf("Throttled() = %d without a quota", n)
	}
}

// TestClock: the simulated clock moves only when told, never back, and
// its Sleep returns at once having moved it.
func TestClock(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	c := sheetsfake.NewClock(t0)
	if !c.Now().Equal(t0) {
		t.Fatalf("Now() = %v, want %v", c.Now(), t0)
	}
	if err := c.Sleep(context.Background(), 90*time.Second); err != nil {
		t.Fatal(err)
	}
	c.Advance(-time.Hour)
	if got, want := c.Now(), t0.Add(90*time.Second); !got.Equal(want) {
		t.Errorf("after sleeping 90s and advancing -1h: %v, want %v", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep with an ended context: %v", err)
	}
	if got, want := c.Now(), t0.Add(90*time.Second); !got.Equal(want) {
		t.Errorf("a sleep that ended early moved the clock to %v", got)
	}
}
